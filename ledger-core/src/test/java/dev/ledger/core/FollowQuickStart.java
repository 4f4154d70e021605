package dev.ledger.core;

import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * The README's "Following a ledger" snippet, compiled and run by
 * {@link FollowQuickStartTest}: a writer thread counts to 3 while the main thread follows
 * the ledger from its start and prints each event, then the cursor to resume from.
 */
public final class FollowQuickStart {
  private FollowQuickStart() {}

  /** The state: a count. */
  public record Count(int value) {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("ledger-follow");
    try (LedgerStore store = FileLedgerStore.open(dir)) {
      Ledger<Count> ledger = store.ledger("counter", Count.class);
      ledger.commit(Ledger.NO_REVISION, new Count(1),
          EventDraft.of("counted", Map.of("to", 1)));

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
