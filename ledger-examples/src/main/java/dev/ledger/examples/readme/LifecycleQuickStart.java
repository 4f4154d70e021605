package dev.ledger.examples.readme;

// README:begin lifecycle
import dev.ledger.core.Event;
import dev.ledger.core.Cursor;
import dev.ledger.core.Ledger;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.lifecycle.InvalidTransitionException;
import dev.ledger.core.lifecycle.Lifecycle;
import dev.ledger.core.lifecycle.Transition;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Set;

/** A document's review, guarded by a lifecycle, in a plain ledger. */
public class LifecycleQuickStart {
  /** Where a document stands. */
  public enum Phase { DRAFT, REVIEW, PUBLISHED, WITHDRAWN }

  /** The ledger's state: the phase and the times the lifecycle stamps. */
  public record Doc(Phase phase, Instant reviewedAt, Instant endedAt) {}

  static final Lifecycle<Phase> PHASES = Lifecycle.forEnum(Phase.class)
      .initial(Phase.DRAFT)
      .allow(Phase.DRAFT, Phase.REVIEW, Phase.WITHDRAWN)
      .allow(Phase.REVIEW, Phase.DRAFT, Phase.PUBLISHED, Phase.WITHDRAWN)
      .terminal(Phase.PUBLISHED, Phase.WITHDRAWN)
      .stampOnFirstEntry("reviewedAt", Phase.REVIEW)
      .stampOnTerminal("endedAt")
      .build();

  /** Moves the document, or throws InvalidTransitionException; staying put writes nothing. */
  static void move(FileLedgerStore store, Ledger<Doc> ledger, Phase to) {
    Versioned<Doc> current = ledger.load();
    Doc doc = current.state();
    Set<String> stamped = doc.reviewedAt() == null ? Set.of() : Set.of("reviewedAt");
    Transition<Phase> step = PHASES.transition(doc.phase(), to, stamped,
        store.options().clock().instant(), ledger.rootId());
    if (step.isNoOp()) {
      return;
    }
    Doc next = new Doc(to, step.stamps().getOrDefault("reviewedAt", doc.reviewedAt()),
        step.stamps().getOrDefault("endedAt", doc.endedAt()));
    long revision = current.revision() + 1;
    ledger.commit(current.revision(), next,
        PHASES.statusChanged(step, revision, null).toEvent());
  }

  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("lifecycle");
    try (FileLedgerStore store = FileLedgerStore.open(dir)) {
      Ledger<Doc> ledger = store.ledger("doc-1", Doc.class);
      ledger.commit(Ledger.NO_REVISION, new Doc(Phase.DRAFT, null, null));
      move(store, ledger, Phase.REVIEW);
      Instant firstReview = ledger.load().state().reviewedAt();
      move(store, ledger, Phase.DRAFT);
      move(store, ledger, Phase.REVIEW);
      move(store, ledger, Phase.REVIEW); // a no-op: no commit, no event
      move(store, ledger, Phase.PUBLISHED);
      try {
        move(store, ledger, Phase.WITHDRAWN);
      } catch (InvalidTransitionException e) {
        System.out.println("refused " + e.from() + " -> " + e.to() + ", allowed " + e.allowed());
      }
      Doc doc = ledger.load().state();
      System.out.println(doc.phase() + " at revision " + ledger.load().revision()
          + ", first review kept: " + doc.reviewedAt().equals(firstReview)
          + ", ended: " + (doc.endedAt() != null));
      for (Event e : ledger.events(Cursor.START, 100).events()) {
        System.out.println(e.revision() + " " + e.type() + " " + e.payload());
      }
    }
  }
}
// README:end
