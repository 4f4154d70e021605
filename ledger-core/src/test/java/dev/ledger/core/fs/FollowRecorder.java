package dev.ledger.core.fs;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventFollower;
import dev.ledger.testing.base.ChildJvm;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Child main for {@link FileLedgerCrossProcessFollowTest}: a follower in its own process. Opens
 * the store read-only, follows the counter ledger from the start and prints
 * {@code EVENT <sequence> <writer/step>} for each event it receives, in the order received.
 * Prints {@code READY} once the follower is open; on {@code STOP} from the parent it keeps
 * reading until nothing arrives for a second, prints {@code DONE} and exits 0 (1 on any
 * failure, stack trace on stderr).
 *
 * <p>Arguments: store directory, root id.
 */
public final class FollowRecorder {
  private FollowRecorder() {}

  public static void main(String[] args) throws Exception {
    Path base = Path.of(args[0]);
    String root = args[1];
    AtomicBoolean stop = new AtomicBoolean();
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base);
        EventFollower follower = store.ledger(root, Counter.class).follow(Cursor.START, 16)) {
      Thread stopper = new Thread(() -> {
        try {
          ChildJvm.awaitFromParent("STOP");
        } catch (IOException e) {
          // the parent is gone: stop as well
        }
        stop.set(true);
      }, "stop-signal");
      stopper.setDaemon(true);
      stopper.start();
      System.out.println("READY");
      System.out.flush();
      while (true) {
        boolean stopping = stop.get();
        Optional<Event> event = follower.next(Duration.ofMillis(stopping ? 1000 : 100));
        if (event.isPresent()) {
          System.out.println("EVENT " + event.get().sequence() + " " + Counter.step(event.get()));
          System.out.flush();
        } else if (stopping) {
          break;
        }
      }
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE");
    System.out.flush();
  }
}
