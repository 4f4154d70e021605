package dev.ledger.collections.patchlog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import com.google.common.hash.Hashing;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.View;
import dev.ledger.core.CommitResult;
import dev.ledger.core.EventDraft;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.PatchLogSource;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.PendingCommit;
import dev.ledger.core.spi.RetryableFailure;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The machinery behind {@code CollectionStore}: open partitions, the transaction loop, the
 * checkpoint policy. Thread-safe.
 */
final class Engine {
  private static final Logger LOG = LoggerFactory.getLogger(Engine.class);
  /** The state version partitions are written with. */
  static final int STATE_VERSION = 0;
  /** The most commits of a store between two measures of a partition's journal. */
  static final int MAX_COMMITS_BETWEEN_MEASURES = 64;

  final Schema schema;
  final ObjectMapper mapper;
  final CollectionOptions options;
  /** What the store records; {@link CollectionMeters#NONE} without a meter registry. */
  final CollectionMeters meters;
  final FieldPaths paths;
  /**
   * Whether the mapper is the library's own (no customizer): then a value that is already a
   * JSON tree, a string or a boolean maps to the tree data binding would give, and
   * {@link TxContext#toTree} copies it instead of running it through Jackson's serializer and
   * parser; any other value's tree is built from the serializer's tokens
   * ({@link Json#canonicalTree}). A customized mapper may map any of them otherwise, or read
   * trees otherwise, so every value goes through {@code valueToTree}.
   */
  final boolean libraryMapper;
  /** The mapper's serialization as {@code valueToTree} runs it ({@link Json#canonicalTree}). */
  final ObjectWriter treeWriter;
  private final LedgerStore ledgers;
  private final PatchLogSource logs;
  private final ConcurrentHashMap<String, Partition> partitions = new ConcurrentHashMap<>();

  /**
   * Creates the engine.
   *
   * @param ledgers the store, as a ledger store (command look-ups)
   * @param logs the same store, as a patch log source
   * @param schema the schema
   * @param mapper the mapper of documents
   * @param options the options
   */
  Engine(LedgerStore ledgers, PatchLogSource logs, Schema schema, ObjectMapper mapper,
      CollectionOptions options) {
    this.ledgers = ledgers;
    this.logs = logs;
    this.schema = schema;
    this.mapper = mapper;
    this.options = options;
    this.meters = CollectionMeters.of(options.meterRegistry());
    this.paths = new FieldPaths(mapper);
    this.libraryMapper = ledgers.options().mapper() == LedgerOptions.defaults().mapper();
    this.treeWriter = mapper.writer().without(SerializationFeature.WRAP_ROOT_VALUE);
  }

  /**
   * The mapper's reader of each document type: {@code treeToValue} constructs the type and
   * looks its deserializer up on every call; a reader holds both.
   */
  private final ConcurrentHashMap<Class<?>, ObjectReader> readers = new ConcurrentHashMap<>();

  /** The mapper's reader of {@code type} (see {@code TxContext#fromTree}). */
  ObjectReader readerFor(Class<?> type) {
    ObjectReader reader = readers.get(type);
    return reader != null ? reader : readers.computeIfAbsent(type, mapper::readerFor);
  }

  /** Per partition, the newest view revision at which a backend declined a query. */
  private final ConcurrentHashMap<String, Long> declines = new ConcurrentHashMap<>();

  /** The patch log of an open partition, or null. */
  dev.ledger.core.spi.PatchLog logOf(String id) {
    Partition open = partitions.get(id);
    return open == null ? null : open.log;
  }

  /**
   * Whether this is the first time the backend declined a query of partition {@code id} at
   * {@code revision}: a rebuild of its documents table is tried once per revision.
   */
  boolean firstDeclineAt(String id, long revision) {
    Long before = declines.put(id, revision);
    return before == null || before != revision;
  }

  private Partition partition(String id) {
    Preconditions.checkNotNull(id, "partition");
    Partition open = partitions.get(id);
    if (open != null) {
      return open;
    }
    // The patch log validates the id as a root id and refuses a closed store.
    return partitions.computeIfAbsent(id, p -> new Partition(this, p, logs.patchLog(p)));
  }

  /**
   * Runs a transaction; see {@code CollectionStore#execute}.
   *
   * @param id the partition
   * @param commandId the command id, or null
   * @param work the callback
   * @param <R> what it returns
   * @return the result
   */
  <R> TransactionResult<R> execute(String id, String commandId,
      Function<? super Transaction, ? extends R> work) {
    Preconditions.checkNotNull(work, "work");
    if (commandId != null) {
      Preconditions.checkArgument(!commandId.isEmpty()
          && commandId.length() <= EventDraft.MAX_NAME_LENGTH,
          "command id must have 1 to %s characters, got %s", EventDraft.MAX_NAME_LENGTH,
          commandId.length());
    }
    Partition partition = partition(id);
    Preconditions.checkState(!partition.writer.isHeldByCurrentThread(),
        "a transaction on partition '%s' cannot start inside another on the same partition",
        id);
    LedgerException last = null;
    for (int attempt = 0; attempt < options.attempts(); attempt++) {
      if (attempt > 0) {
        meters.retry();
        backoff(id, attempt);
      }
      PendingCommit pending;
      R value;
      partition.writer.lock();
      try {
        PartitionView view;
        try {
          view = partition.catchUp();
        } catch (RevisionConflictException e) {
          // The log refused the view's revision: its ledger was deleted (and perhaps created
          // again) elsewhere. catchUp dropped the view; the next attempt opens it afresh.
          if (last != null) {
            e.addSuppressed(last);
          }
          last = e;
          continue;
        }
        if (commandId != null) {
          Optional<CommitResult> recorded = ledgers.ledger(id, JsonNode.class)
              .command(commandId);
          if (recorded.isPresent()) {
            return new TransactionResult<>(null, recorded.get().revision(), true);
          }
        }
        // The revision the callback reads: the commit expects exactly it, even if something
        // moved the view meanwhile (then the commit conflicts and the callback runs again).
        long base = view.revision;
        TxContext tx = new TxContext(this, id, view, true);
        try {
          value = work.apply(tx);
        } finally {
          tx.close();
        }
        ObjectNode patch = tx.patch();
        if (patch.isEmpty() && commandId == null) {
          return new TransactionResult<>(value, base, false);
        }
        PatchRequest request = new PatchRequest(base, patch, STATE_VERSION,
            tx.events(), commandId == null ? null : CommitRequest.publicCommandId(commandId),
            commandId == null ? null : digest(commandId));
        try {
          // Written, not yet durable: the next transaction of this store may run on it and
          // be written while this one waits, and one force covers both (group commit).
          pending = partition.log.keepsDocuments()
              ? partition.log.appendPatch(request, tx.documentRows())
              : partition.log.appendPatch(request);
        } catch (LedgerException e) {
          if (!(e instanceof RevisionConflictException) && !passing(e, commandId)) {
            throw e;
          }
          if (e instanceof RevisionConflictException conflict && conflict.actual() <= base) {
            // Not a newer commit: the ledger the view was read from is gone (deleted, or
            // deleted and created again). Catching up from the view's revision would fold the
            // new ledger's commits onto the old one's state; open the view afresh instead.
            partition.drop();
          }
          if (last != null) {
            e.addSuppressed(last);
          }
          last = e;
          continue;
        }
        if (pending.result().replayed()) {
          return new TransactionResult<>(null, pending.awaitDurable().revision(), true);
        }
        partition.applyOwn(tx, patch, pending.result().revision());
        maybeCheckpoint(partition, view);
      } finally {
        partition.writer.unlock();
      }
      // Acknowledged only once durable, outside the partition's lock.
      try {
        pending.awaitDurable();
      } catch (LedgerException e) {
        // The view holds a commit that may be lost, and what later transactions built on it.
        partition.writer.lock();
        try {
          partition.drop();
        } finally {
          partition.writer.unlock();
        }
        throw e;
      }
      return new TransactionResult<>(value, pending.result().revision(), false);
    }
    throw last;
  }

  /**
   * Whether a failed commit is re-run like a revision conflict: the backend says the failure
   * may pass (a serialization failure, a deadlock, a broken connection) and either nothing
   * landed or the command id makes the re-run replay what did.
   */
  private static boolean passing(LedgerException e, String commandId) {
    return e instanceof RetryableFailure f && f.retryable()
        && (!f.outcomeUnknown() || commandId != null);
  }

  /**
   * The intent digest of a collection transaction's command: its id alone, so that a retry
   * whose callback, re-run on newer data, writes something else is still the same command.
   */
  private static String digest(String commandId) {
    return Hashing.sha256().hashString("dev.ledger.collections:" + commandId,
        StandardCharsets.UTF_8).toString();
  }

  /**
   * Runs a read; see {@code CollectionStore#read}.
   *
   * @param id the partition
   * @param work the callback
   * @param <R> what it returns
   * @return what the callback returned
   */
  <R> R read(String id, Function<? super View, ? extends R> work) {
    Preconditions.checkNotNull(work, "work");
    Partition partition = partition(id);
    if (partition.writer.isHeldByCurrentThread()) {
      // A read inside a transaction callback of this partition: the view must not move under
      // the transaction, so it is read as it is.
      return readView(partition, id, work);
    }
    if (partition.writer.tryLock()) {
      try {
        partition.catchUp();
      } finally {
        partition.writer.unlock();
      }
    } else if (partition.view() == null) {
      partition.writer.lock();
      try {
        partition.catchUp();
      } finally {
        partition.writer.unlock();
      }
    }
    return readView(partition, id, work);
  }

  private <R> R readView(Partition partition, String id,
      Function<? super View, ? extends R> work) {
    partition.viewLock.readLock().lock();
    try {
      PartitionView view = partition.view();
      if (view == null) {
        // A failed catch-up of another thread dropped the view between the two locks.
        throw new IllegalStateException("partition '" + id + "' has no view; retry the read");
      }
      TxContext tx = new TxContext(this, id, view, false);
      try {
        return work.apply(tx);
      } finally {
        tx.close();
      }
    } finally {
      partition.viewLock.readLock().unlock();
    }
  }

  /**
   * Writes a checkpoint when the journal since the last one outgrew the data: its cost is
   * then amortized over at least as many journal bytes as it writes. A failed checkpoint
   * does not fail the transaction, which is committed: it is logged, and the next commit
   * tries again.
   *
   * <p>Measuring the journal costs file-system calls, so it is not done after every commit
   * while the threshold is far: from the growth per commit seen between two measurements,
   * the next one comes when at most half the remaining distance can have been used up (after
   * 1 to {@value #MAX_COMMITS_BETWEEN_MEASURES} commits of this store). Call with the
   * partition's writer lock held.
   */
  private void maybeCheckpoint(Partition partition, PartitionView view) {
    partition.commitsSinceMeasure++;
    if (partition.commitsSinceMeasure < partition.commitsBeforeMeasure) {
      return;
    }
    try {
      long journal = partition.log.journalBytesSinceCheckpoint();
      double threshold = Math.max(options.checkpointFloorBytes(),
          options.checkpointFraction() * view.dataBytes());
      long grown = journal - partition.measuredJournalBytes;
      long commits = partition.commitsSinceMeasure;
      partition.measuredJournalBytes = journal;
      partition.commitsSinceMeasure = 0;
      partition.commitsBeforeMeasure = 1;
      if (journal > threshold) {
        // As bytes: documents still as the last checkpoint's bytes are copied, not parsed.
        byte[] state = partition.log.takesCheckpointBytes() ? view.toCanonicalBytes() : null;
        if (state != null) {
          partition.log.checkpointBytes(view.revision, state, STATE_VERSION);
        } else {
          partition.log.checkpoint(view.revision, view.toTree(), STATE_VERSION);
        }
        partition.measuredJournalBytes = 0;
      } else if (grown > 0) {
        double perCommit = (double) grown / commits;
        partition.commitsBeforeMeasure = (int) Math.max(1, Math.min(
            MAX_COMMITS_BETWEEN_MEASURES, (threshold - journal) / 2 / perCommit));
      }
    } catch (LedgerException e) {
      LOG.warn("Checkpoint of partition '{}' at revision {} failed; the next commit retries",
          partition.id, view.revision, e);
    }
  }

  private void backoff(String id, int attempt) {
    long base = options.backoff().toNanos();
    if (base == 0) {
      return;
    }
    long ceiling = Math.min(base << Math.min(attempt, 16), TimeUnit.MILLISECONDS.toNanos(100));
    long pause = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    try {
      TimeUnit.NANOSECONDS.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while retrying a transaction on partition '"
          + id + "'", e);
    }
  }
}
