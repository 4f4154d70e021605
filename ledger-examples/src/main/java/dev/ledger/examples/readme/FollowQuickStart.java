package dev.ledger.examples.readme;

// README:begin follow
import dev.ledger.core.Change;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Following a ledger: a writer thread counts to 3 while the main thread follows. */
public class FollowQuickStart {
  /** The state: a count. */
  public record Count(int value) {}

  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("follow");
    try (LedgerStore store = FileLedgerStore.open(dir)) {
      Ledger<Count> ledger = store.ledger("counter", Count.class);
      ledger.commit(Ledger.NO_REVISION, new Count(1), EventDraft.of("counted", Map.of("to", 1)));

      Thread writer = new Thread(() -> {
        for (int i = 2; i <= 3; i++) {
          EventDraft counted = EventDraft.of("counted", Map.of("to", i));
          ledger.update(count -> Change.to(new Count(count.value() + 1), counted));
        }
      });
      try (EventFollower follower = ledger.follow(Cursor.START)) {
        writer.start();
        for (int seen = 0; seen < 3; seen++) {
          Optional<Event> event = follower.next(Duration.ofSeconds(10)); // waits for commits
          if (event.isEmpty()) {
            break;
          }
          System.out.println(event.get().sequence() + " " + event.get().type() + " "
              + event.get().payload());
        }
        Cursor resume = follower.cursor(); // store it; ledger.follow(resume) goes on from here
        System.out.println("resume after " + ledger.events(resume, 1).events().size()
            + " more");
      }
      writer.join();
    }
  }
}
// README:end
