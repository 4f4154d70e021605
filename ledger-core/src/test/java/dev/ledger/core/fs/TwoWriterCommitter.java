package dev.ledger.core.fs;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;

/**
 * Child main for {@link FileLedgerCommandIndexCrashTest}: two writers (two store instances,
 * as two processes would be) commit to one ledger by turns, until killed: {@value #RUN}
 * commits through one, then one through the other. From its second commit on, the second
 * writer's view is stale: the first has checkpointed past it, so its checkpoint writes command
 * index entries that {@code state.json} already covers. Prints {@code ACK <revision> <command id>} after each
 * commit, like {@link AckingCommitter}, whose commits it makes, and {@code STALE <revision>}
 * before each commit through the stale writer.
 *
 * <p>Arguments: store directory, root id.
 */
public final class TwoWriterCommitter {
  static final int RUN = 100;

  private TwoWriterCommitter() {}

  /** No forces: kills, not power cuts, are tested, and commits come faster. */
  static LedgerOptions options() {
    return AckingCommitter.options().withDurability(Durability.UNSAFE_NO_SYNC);
  }

  public static void main(String[] args) {
    ChildJvm.exitWhenParentGoes();
    Path base = Path.of(args[0]);
    try (FileLedgerStore busy = FileLedgerStore.open(base, options());
        FileLedgerStore stale = FileLedgerStore.open(base, options())) {
      Ledger<Tick> often = busy.ledger(args[1], Tick.class);
      Ledger<Tick> seldom = stale.ledger(args[1], Tick.class);
      long revision = often.find().map(Versioned::revision).orElse(Ledger.NO_REVISION);
      while (true) {
        for (int i = 0; i < RUN; i++) {
          revision = commitNext(often, revision);
        }
        // Its checkpoint follows this commit: the parent aims its kill at it.
        System.out.println("STALE " + (revision + 1));
        System.out.flush();
        revision = commitNext(seldom, revision);
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }

  private static long commitNext(Ledger<Tick> ledger, long revision) {
    long next = revision + 1;
    CommitResult result = ledger.commit(revision, AckingCommitter.state(next),
        AckingCommitter.events(next));
    if (result.revision() != next || result.replayed()) {
      throw new IllegalStateException("expected a new revision " + next + ", got " + result);
    }
    System.out.println("ACK " + next + " " + AckingCommitter.commandId(next));
    System.out.flush();
    return next;
  }
}
