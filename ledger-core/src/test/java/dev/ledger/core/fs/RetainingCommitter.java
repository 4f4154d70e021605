package dev.ledger.core.fs;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;

/**
 * Child main for {@link FileLedgerRetentionCrashTest}: commits {@link AckingCommitter}'s
 * commits in an endless loop, printing {@code ACK <revision> <command id>} after each, and
 * after every {@link #EVERY}-th applies {@code keepRevisions(}{@link #KEEP}{@code )},
 * printing {@code RETAINED <first retained revision> <segments removed>}, until it is killed.
 *
 * <p>Arguments: store directory, root id.
 */
public final class RetainingCommitter {
  /** Revisions the policy keeps. */
  static final int KEEP = 20;
  /** Commits between two retentions. */
  static final int EVERY = 3;

  private RetainingCommitter() {}

  public static void main(String[] args) {
    ChildJvm.exitWhenParentGoes();
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[0]),
        AckingCommitter.options())) {
      Ledger<Tick> ledger = store.ledger(args[1], Tick.class);
      long revision = ledger.find().map(Versioned::revision).orElse(Ledger.NO_REVISION);
      while (true) {
        long next = revision + 1;
        CommitResult result = ledger.commit(revision, AckingCommitter.state(next),
            AckingCommitter.events(next));
        if (result.revision() != next) {
          throw new IllegalStateException("expected revision " + next + ", got " + result);
        }
        System.out.println("ACK " + next + " " + AckingCommitter.commandId(next));
        System.out.flush();
        revision = next;
        if (revision % EVERY == 0) {
          RetentionResult retained = store.applyRetention(args[1],
              RetentionPolicy.keepRevisions(KEEP));
          System.out.println("RETAINED " + retained.firstRetainedRevision() + " "
              + retained.segmentsRemoved());
          System.out.flush();
        }
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
