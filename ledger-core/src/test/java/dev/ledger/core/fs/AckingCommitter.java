package dev.ledger.core.fs;

import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.Versioned;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Child main for {@link FileLedgerCrashTest}: commits to one ledger in an endless loop until
 * it is killed, and after each acknowledged commit prints {@code ACK <revision> <command id>}
 * and flushes, so the parent knows exactly which commits were acknowledged.
 *
 * <p>Every commit is a deterministic function of its revision ({@link #state},
 * {@link #events}, {@link #commandId}), so that the parent can check the state of any revision
 * and retry any acknowledged command with its exact content. It continues from whatever
 * revision the ledger is at, with SYNC durability, a checkpoint every 5 commits and the
 * smallest segments, so that kills also land inside checkpoints and segment rolls.
 *
 * <p>Several committers may run on one ledger at once: the one that loses a revision gets the
 * winner's commit replayed (same command, same content) and acknowledges it too.
 *
 * <p>Arguments: store directory, root id.
 */
public final class AckingCommitter {
  private static final String PAD = "0123456789abcdef".repeat(4);

  private AckingCommitter() {}

  /** A state whose every revision changes part of it, as real states do. */
  record Tick(long revision, String label, String pad) {}

  /** The options the committer and the checking parent use. */
  static LedgerOptions options() {
    return LedgerOptions.defaults()
        .withCheckpointInterval(5)
        .withSegmentBytes(4096)
        .withLockTimeout(Duration.ofSeconds(30));
  }

  static Tick state(long revision) {
    return new Tick(revision, "tick-" + revision, PAD);
  }

  static String commandId(long revision) {
    return "commit-" + revision;
  }

  static EventDraft events(long revision) {
    return EventDraft.of("ticked", Map.of("revision", revision, "pad", PAD))
        .withCommandId(commandId(revision));
  }

  public static void main(String[] args) {
    ChildJvm.exitWhenParentGoes();
    try (FileLedgerStore store = FileLedgerStore.open(Path.of(args[0]), options())) {
      Ledger<Tick> ledger = store.ledger(args[1], Tick.class);
      long revision = ledger.find().map(Versioned::revision).orElse(Ledger.NO_REVISION);
      while (true) {
        long next = revision + 1;
        CommitResult result;
        try {
          result = ledger.commit(revision, state(next), events(next));
        } catch (RevisionConflictException e) {
          // Commits are functions of their revision: if another committer took this revision,
          // it did so with this very command, which must then be replayed, not refused.
          throw new IllegalStateException("revision " + next + " taken, its command not found", e);
        }
        // A replay: another committer made this very commit first.
        if (result.revision() != next) {
          throw new IllegalStateException("expected revision " + next + ", got " + result);
        }
        System.out.println("ACK " + next + " " + commandId(next));
        System.out.flush();
        revision = next;
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
