package dev.ledger.core.spi;

import dev.ledger.core.CommitResult;

/**
 * A commit that a {@link PatchLog} wrote to its journal and may not have made durable yet
 * ({@link PatchLog#appendPatch}): its revision is taken, and later commits build on it, but
 * it is acknowledged only by {@link #awaitDurable}.
 *
 * <p>Thread-safe: any thread may wait, any number of times.
 */
public interface PendingCommit {
  /**
   * What the commit recorded (revision, events, cursor), known as soon as it is written. Not
   * an acknowledgement: until {@link #awaitDurable} returns, a crash may lose it.
   *
   * @return the commit's result
   */
  CommitResult result();

  /**
   * Waits until the commit is durable (under {@code SYNC}, forced; a force made for a group
   * of commits counts for each of them) and returns its result.
   *
   * @return {@link #result()}, now durable
   * @throws dev.ledger.core.LedgerException if the force failed: the commit may or may not
   *     survive a crash, the ledger refuses writes until the store is reopened, and the
   *     caller must treat every commit built on this one the same way
   */
  CommitResult awaitDurable();

  /**
   * A commit that is durable already (a backend that forces as it writes, or a replayed
   * command).
   *
   * @param result the durable commit's result
   * @return a pending commit whose wait returns at once
   */
  static PendingCommit durable(CommitResult result) {
    java.util.Objects.requireNonNull(result, "result");
    return new PendingCommit() {
      @Override
      public CommitResult result() {
        return result;
      }

      @Override
      public CommitResult awaitDurable() {
        return result;
      }
    };
  }
}
