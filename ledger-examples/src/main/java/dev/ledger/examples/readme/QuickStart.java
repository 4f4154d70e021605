package dev.ledger.examples.readme;

// README:begin quickstart
import dev.ledger.core.Change;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** A ledger: create it, update it, meet a conflict, read its journal. */
public class QuickStart {
  /** The ledger's state: any class Jackson maps, records included. */
  public record Plan(String name, List<String> done) {}

  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws IOException {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("quickstart");
    System.out.println("store in " + dir);
    try (LedgerStore store = FileLedgerStore.open(dir)) { // or InMemoryLedgerStore.create()
      Ledger<Plan> ledger = store.ledger("run-1", Plan.class);

      // Create: expected revision NO_REVISION. The command id makes a retry harmless.
      EventDraft created = EventDraft.of("plan.created", Map.of("by", "me"))
          .withCommandId("create-run-1");
      CommitResult first = ledger.commit(Ledger.NO_REVISION, new Plan("build", List.of()), created);
      CommitResult retry = ledger.commit(Ledger.NO_REVISION, new Plan("build", List.of()), created);
      System.out.println("created revision " + first.revision() + "; the retry wrote nothing: "
          + retry.replayed());

      // Read-modify-write: load, decide, commit; asked again if another writer got there first.
      Versioned<Plan> now = ledger.update(plan -> plan.done().contains("compile")
          ? Change.none()
          : Change.to(new Plan(plan.name(), List.of("compile")),
              EventDraft.of("task.done", Map.of("task", "compile"))));
      System.out.println("revision " + now.revision() + ": " + now.state());

      // A commit based on an old revision is refused.
      try {
        ledger.commit(first.revision(), new Plan("stale", List.of()));
      } catch (RevisionConflictException e) {
        System.out.println("refused: expected " + e.expected() + ", actual " + e.actual());
      }

      // The journal: a page from the start, then whatever came after a saved cursor.
      EventPage page = ledger.events(Cursor.START, 100);
      for (Event e : page.events()) {
        System.out.println("event " + e.sequence() + " " + e.type() + " " + e.payload());
      }
      Cursor saved = Cursor.of(first.cursor().token()); // a token you can store anywhere
      try (Stream<Event> later = ledger.replay(saved)) {
        later.forEach(e -> System.out.println("after the first commit: " + e.type()));
      }
    }
  }
}
// README:end
