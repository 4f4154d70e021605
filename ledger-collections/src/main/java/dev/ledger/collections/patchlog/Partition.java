package dev.ledger.collections.patchlog;

import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.RawState;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;

/**
 * One open partition of one collection store: its patch log and its live view.
 *
 * <p><b>Locks.</b> {@code writer} serializes this store's transactions on the partition and
 * every change of the view (catch-up and the apply after a commit), so a transaction's callback
 * reads a view nobody changes. {@code view} lets reads run beside the callback: a change of
 * the view takes its write side, which is short (the patches applied), and a read holds its
 * read side for the read's callback. Other processes and stores are kept apart by the
 * ledger's revision check, not by these locks.
 */
final class Partition {
  final String id;
  final PatchLog log;
  final ReentrantLock writer = new ReentrantLock();
  final ReentrantReadWriteLock viewLock = new ReentrantReadWriteLock();
  /** Commits of this store since the journal was last measured; guarded by {@code writer}. */
  int commitsSinceMeasure;
  /** Commits of this store before the journal is measured again; guarded by {@code writer}. */
  int commitsBeforeMeasure = 1;
  /** The journal bytes after the checkpoint at the last measure; guarded by {@code writer}. */
  long measuredJournalBytes;
  /** The live view; null until opened; changed under {@code writer} and the write side. */
  private volatile PartitionView view;
  private final Engine engine;

  Partition(Engine engine, String id, PatchLog log) {
    this.engine = engine;
    this.id = id;
    this.log = log;
  }

  /**
   * Opens the view if needed and folds the commits after it; call with {@code writer} held.
   * A cold open reads the checkpoint and the commits after it; later calls only the commits
   * after the view's revision.
   */
  PartitionView catchUp() {
    if (view == null) {
      PartitionView fresh = new PartitionView(engine.schema);
      // Nothing reads the view before it is published: its indexes are built once, at the end.
      fresh.deferIndexes();
      // The checkpoint as bytes: its documents are found, not built, and each is parsed on
      // first use (see StateScan).
      Optional<RawState> checkpoint = log.rawCheckpoint();
      if (checkpoint.isPresent()) {
        // Two cores: the journal after the checkpoint is parsed on another thread while this
        // one loads the checkpoint's documents, then folded as it arrives.
        RawState cp = checkpoint.get();
        try (JournalPrefetch journal = new JournalPrefetch(log, cp.revision(), id)) {
          fresh.load(cp);
          journal.forEach(fresh::apply);
        }
      } else {
        fold(fresh);
      }
      fresh.buildIndexes();
      viewLock.writeLock().lock();
      try {
        view = fresh;
      } finally {
        viewLock.writeLock().unlock();
      }
      return view;
    }
    viewLock.writeLock().lock();
    try {
      fold(view);
    } catch (RuntimeException e) {
      // A fold that stopped half way leaves a view of no revision: open afresh next time.
      view = null;
      throw e;
    } finally {
      viewLock.writeLock().unlock();
    }
    return view;
  }

  private void fold(PartitionView target) {
    // The view folds states and patches only: the events of the records are not decoded.
    try (Stream<LoggedCommit> commits = log.patchesAfter(target.revision)) {
      commits.forEach(target::apply);
    }
  }

  /**
   * Applies this store's own commit, {@code patch} as written by {@code tx}; call with
   * {@code writer} held.
   */
  void applyOwn(TxContext tx, com.fasterxml.jackson.databind.JsonNode patch, long revision) {
    viewLock.writeLock().lock();
    try {
      view.applyOwn(tx, patch, revision);
    } catch (RuntimeException e) {
      view = null;
      throw e;
    } finally {
      viewLock.writeLock().unlock();
    }
  }

  /**
   * Drops the view, so that the next catch-up opens it afresh from the journal: a commit it
   * holds failed to become durable. Call with {@code writer} held.
   */
  void drop() {
    viewLock.writeLock().lock();
    try {
      view = null;
    } finally {
      viewLock.writeLock().unlock();
    }
  }

  /** The view, for a read holding the read side; null before the first open. */
  PartitionView view() {
    return view;
  }
}
