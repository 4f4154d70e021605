package dev.ledger.core.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CommitResult;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * One ledger seen as a log of state patches: the lower-level path for a layer that keeps its
 * own live, incrementally updated view of a ledger's state (the collection store) and so must
 * not pay for the whole state on every commit.
 *
 * <p>A {@link dev.ledger.core.Ledger} diffs the whole new state against the old one and
 * records the smaller of state and patch; its cost grows with the state. Through a patch log
 * the caller hands the backend a JSON merge patch (RFC 7386) it already knows, and the backend
 * appends it without building, diffing or holding the state: the cost of a commit is the size
 * of its patch. The caller decides when the state is worth a checkpoint (see
 * {@link #checkpoint(long, JsonNode, int)}); readers of the same ledger through
 * {@link dev.ledger.core.Ledger} still see every revision, folded from the last checkpoint.
 *
 * <p><b>Durability and atomicity</b> are those of {@link LedgerBackend#commit}: when
 * {@link #commitPatches} returns under {@code SYNC}, every commit of the batch survives a
 * power cut; the batch is written as consecutive journal records, and after a crash a prefix
 * of it survives (each record whole or not at all). How many forces that takes is the
 * backend's: the file store writes the batch and forces it once, and one force covers the
 * commits of every writer of the ledger in this store that is ready at the same time (group
 * commit; its journal records say which records were unforced when they were written, so that
 * recovery keeps the whole records before the first one a power cut damaged). The records are
 * ordinary
 * journal records (a {@code patch} record of the journal format), so verify, repair, export,
 * import and followers treat them like any other.
 *
 * <p><b>Threads and processes.</b> Implementations are thread-safe. A commit takes the
 * ledger's writer lock, as {@link LedgerBackend#commit} does; the revision check makes racing
 * writers (threads, processes, a {@code Ledger} on the same root) safe.
 */
public interface PatchLog {
  /**
   * The ledger this log belongs to.
   *
   * @return the root id
   */
  String rootId();

  /**
   * The newest checkpoint: the state as of one revision, without the journal records after
   * it. Reads no journal record and takes no lock.
   *
   * @return the checkpointed state (its tree is shared and must not be mutated), or empty
   *     when the ledger has no checkpoint (never committed, or committed fewer times than its
   *     first checkpoint)
   * @throws dev.ledger.core.CorruptLedgerException if the checkpoint is damaged
   * @throws dev.ledger.core.LedgerIOException if it cannot be read
   */
  Optional<StoredState> checkpoint();

  /**
   * The newest checkpoint as {@link #checkpoint} gives it, but with its state as the bytes of
   * its JSON rather than a tree: for a layer that reads the state its own way (the collection
   * store finds each document's bytes and parses a document only when it is used). The header
   * (root, revision, format) is checked as {@link #checkpoint} checks it; the state's bytes are
   * only found, not checked nor built into a tree: the caller must check them as it reads
   * them (well-formed JSON, one value filling the range) and report damage as a
   * {@link dev.ledger.core.CorruptLedgerException} naming {@link RawState#file()}. Reads no
   * journal record and takes no lock.
   *
   * <p>The default encodes {@link #checkpoint}'s tree as canonical JSON (compact, members
   * sorted), with no file.
   *
   * @return the checkpointed state's bytes, or empty when the ledger has no checkpoint
   * @throws dev.ledger.core.CorruptLedgerException if the checkpoint is damaged
   * @throws dev.ledger.core.LedgerIOException if it cannot be read
   */
  default Optional<RawState> rawCheckpoint() {
    return checkpoint().map(s -> {
      byte[] bytes = dev.ledger.core.internal.json.LedgerJson.canonical(s.state());
      return new RawState(bytes, 0, bytes.length, s.revision(), s.updatedAt(), s.stateVersion(),
          null);
    });
  }

  /**
   * The commits after a revision, in revision order, read lazily from the journal. A layer
   * that holds a view at revision {@code r} catches up by folding {@code commitsAfter(r)}:
   * the cost is the records after {@code r}, not the state.
   *
   * @param revision the revision the caller holds; 0 for the whole journal
   * @return the commits with revision greater than {@code revision}, up to the newest one
   *     acknowledged when the stream was opened or later; the caller closes the stream
   * @throws IllegalArgumentException if {@code revision} is negative
   * @throws dev.ledger.core.RevisionConflictException if the ledger was removed (deleted or
   *     archived, perhaps created again) since the caller opened its view with
   *     {@link #checkpoint} or {@code commitsAfter(0)}, as far as this backend can know (the
   *     file store: removals through this JVM; PostgreSQL: the head row's generation): the
   *     revision is of a ledger that no longer exists, and the caller opens its view afresh
   * @throws dev.ledger.core.CorruptLedgerException if a record is damaged
   * @throws dev.ledger.core.LedgerIOException if the journal cannot be read
   */
  Stream<LoggedCommit> commitsAfter(long revision);

  /**
   * The commits after a revision as {@link #commitsAfter} gives them, with the same checks
   * and failures, except that their events may be left out: for a layer that only folds the
   * states and patches (a view's cold open or catch-up) and would otherwise pay for decoding
   * every event. A backend that reads events apart from patches (the file store, whose
   * journal lines hold both) skips them; the default is {@link #commitsAfter}.
   *
   * @param revision the revision the caller holds; 0 for the whole journal
   * @return the commits with revision greater than {@code revision}, as
   *     {@link #commitsAfter}; each commit's {@link LoggedCommit#events()} is either its
   *     events or empty; the caller closes the stream
   * @throws IllegalArgumentException if {@code revision} is negative
   * @throws dev.ledger.core.RevisionConflictException as {@link #commitsAfter}
   * @throws dev.ledger.core.CorruptLedgerException if a record is damaged
   * @throws dev.ledger.core.LedgerIOException if the journal cannot be read
   */
  default Stream<LoggedCommit> patchesAfter(long revision) {
    return commitsAfter(revision);
  }

  /**
   * Commits a batch of patches under one writer lock (a group commit: one lock, one catch-up
   * with other writers, one check of the whole batch). Every
   * request is checked before anything is written: the first request's expected revision
   * must be the newest revision, each next one's the revision the previous one produces, and
   * no request's command may already be recorded (with any digest). If any check fails,
   * nothing is written and the exception is thrown; the caller re-reads and retries each
   * request on its own ({@link #commitPatch}, which replays a recorded command).
   *
   * @param batch one or more requests, in the order their revisions are to be assigned
   * @return one result per request, in order
   * @throws IllegalArgumentException if the batch is empty, its revisions are not
   *     consecutive, or two requests carry the same command
   * @throws dev.ledger.core.RevisionConflictException if the newest revision is not the first
   *     request's expected revision
   * @throws dev.ledger.core.CommandConflictException if a request's command is already
   *     recorded (in a batch even a matching digest refuses the batch)
   * @throws dev.ledger.core.LimitExceededException if a record exceeds the store's limits
   * @throws dev.ledger.core.LedgerException for the backend's own failures, as
   *     {@link LedgerBackend#commit}
   */
  List<CommitResult> commitPatches(List<PatchRequest> batch);

  /**
   * Commits one patch: command replay or conflict first (as {@link LedgerBackend#commit}),
   * then the revision check, then one journal record.
   *
   * @param request the patch, its events and command
   * @return the new revision and events, or the recorded result ({@code replayed() == true})
   *     when the command was already recorded with the same digest
   * @throws dev.ledger.core.CommandConflictException if the command was recorded with another
   *     digest
   * @throws dev.ledger.core.RevisionConflictException if the newest revision is not
   *     {@code request.expectedRevision()}
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  CommitResult commitPatch(PatchRequest request);

  /**
   * Commits one patch as {@link #commitPatch} does, but returns once its record is written,
   * before it is durable, so that the caller can let go of its own locks and let the next
   * commit be written while this one waits for its force: a group commit then covers both.
   * The checks are those of {@link #commitPatch} and are made before anything is written;
   * when this returns, the revision is taken (the next commit must expect
   * {@code result().revision()}), and the commit is acknowledged only when
   * {@link PendingCommit#awaitDurable} returns. A caller that shows the commit to others before
   * then (a view it keeps) shows a commit a crash may still lose, as a reader of the journal
   * in another process may; if the wait throws, it must drop what it built on the commit.
   *
   * <p>The default commits with {@link #commitPatch} and returns a commit that is durable
   * already.
   *
   * @param request the patch, its events and command
   * @return the written commit; a replayed command's recorded result is durable
   * @throws dev.ledger.core.CommandConflictException as {@link #commitPatch}
   * @throws dev.ledger.core.RevisionConflictException as {@link #commitPatch}
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default PendingCommit appendPatch(PatchRequest request) {
    return PendingCommit.durable(commitPatch(request));
  }

  /**
   * Commits one patch as {@link #appendPatch(PatchRequest)} does and, on a backend that keeps
   * a documents table, writes {@code documents} (the whole new documents, and removals, of
   * every key the patch changes) in the same transaction, so that the table follows the
   * ledger revision by revision. The caller promises that the rows are exactly the documents
   * the patch leaves. A backend whose table is behind the expected revision (a commit that
   * carried no rows came first) still commits the patch and leaves its table marked stale.
   *
   * <p>The default ignores {@code documents} and calls {@link #appendPatch(PatchRequest)}.
   *
   * @param request the patch, its events and command
   * @param documents the documents the patch writes or removes
   * @return the written commit, as {@link #appendPatch(PatchRequest)}
   * @throws NullPointerException if an argument is null
   * @throws dev.ledger.core.CommandConflictException as {@link #commitPatch}
   * @throws dev.ledger.core.RevisionConflictException as {@link #commitPatch}
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default PendingCommit appendPatch(PatchRequest request, List<DocumentRow> documents) {
    java.util.Objects.requireNonNull(documents, "documents");
    return appendPatch(request);
  }

  /**
   * Whether this backend keeps a documents table that {@link #queryDocuments} may answer
   * from; a caller skips building queries, and the document rows of its commits, for a
   * backend that does not. The default is false.
   *
   * @return true if {@link #queryDocuments} can return results
   */
  default boolean keepsDocuments() {
    return false;
  }

  /**
   * Runs {@code query} on the backend's documents table, if the table holds exactly the
   * documents of {@code revision} and that revision is the ledger's newest (both read in
   * one snapshot); otherwise declines, and the caller answers from its own view.
   *
   * <p>The default declines: the backend keeps no documents table.
   *
   * @param revision the revision the caller's view holds
   * @param query the query
   * @return the matches at {@code revision}, or empty when declined
   * @throws NullPointerException if {@code query} is null
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default Optional<DocumentQuery.Page> queryDocuments(long revision, DocumentQuery query) {
    java.util.Objects.requireNonNull(query, "query");
    return Optional.empty();
  }

  /**
   * Rewrites the backend's documents table from the caller's view, when the ledger is at
   * {@code revision} and the table is not: after commits that carried no documents (a plain
   * {@link dev.ledger.core.Ledger} commit, an import, a patch without rows). The rows are
   * asked for only when the rewrite happens.
   *
   * <p>The default does nothing and returns false.
   *
   * @param revision the revision of the caller's view
   * @param documents every document of the ledger at {@code revision}
   * @return true if the table holds {@code revision} when this returns
   * @throws NullPointerException if an argument is null
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default boolean rebuildDocuments(long revision,
      java.util.function.Supplier<List<DocumentRow>> documents) {
    java.util.Objects.requireNonNull(documents, "documents");
    return false;
  }

  /**
   * Writes {@code state} as the checkpoint of {@code revision}, if {@code revision} is still
   * the newest revision when the writer lock is held; otherwise writes nothing. The caller
   * promises that {@code state} is the fold of the journal up to {@code revision} (verify
   * checks exactly that). The checkpoint is written as a temp file, forced and renamed, and
   * is never the commit point; a failure leaves the previous checkpoint in place.
   *
   * @param revision the revision {@code state} is the state of, at least 1
   * @param state the whole state at that revision; not retained
   * @param stateVersion the state version it is written with
   * @return true if the checkpoint was written, false if the ledger moved past
   *     {@code revision} (or is not at it)
   * @throws IllegalArgumentException if {@code revision} is not positive,
   *     {@code stateVersion} negative, or {@code revision} is the newest revision but was
   *     committed with another state version
   * @throws dev.ledger.core.LimitExceededException if the checkpoint is larger than the
   *     store's readers accept
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  boolean checkpoint(long revision, JsonNode state, int stateVersion);

  /**
   * Whether {@link #checkpointBytes} writes the given bytes as they are (the
   * file store), so that a caller holding its state partly as canonical bytes should give it
   * so; false (the default) when it would only parse them back into a tree, and the caller
   * gives the tree.
   *
   * @return true if the bytes form costs no parse
   */
  default boolean takesCheckpointBytes() {
    return false;
  }

  /**
   * Writes a checkpoint as {@link #checkpoint(long, JsonNode, int)} does, with the state given
   * as the bytes of its canonical JSON (compact, members sorted by name, as
   * {@link dev.ledger.core.internal.json.LedgerJson#canonical} writes a tree): for a caller
   * that holds much of its state as such bytes already (documents read from a checkpoint and
   * not yet parsed) and would otherwise build and write a tree of all of it. The caller
   * promises that the bytes are one canonical JSON object, the state at {@code revision}; the
   * backend may copy them into its checkpoint unchecked, so a checkpoint written either way
   * from the same state is the same. Runs on the calling thread, under the ledger's writer
   * lock, with the same durability and failures as the tree form.
   *
   * <p>The default parses the bytes and calls {@link #checkpoint(long, JsonNode, int)}.
   *
   * @param revision the revision the state is the state of, at least 1
   * @param state the state's canonical JSON; not retained, not changed
   * @param stateVersion the state version it is written with
   * @return as {@link #checkpoint(long, JsonNode, int)}
   * @throws IllegalArgumentException as {@link #checkpoint(long, JsonNode, int)}, or if the
   *     default cannot parse {@code state}
   * @throws dev.ledger.core.LimitExceededException as {@link #checkpoint(long, JsonNode, int)}
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  default boolean checkpointBytes(long revision, byte[] state, int stateVersion) {
    java.util.Objects.requireNonNull(state, "state");
    JsonNode tree;
    try {
      tree = dev.ledger.core.internal.json.LedgerJson.parse(state, 0, state.length);
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("checkpoint state of ledger '" + rootId()
          + "' at revision " + revision + " is not JSON: " + e.getMessage(), e);
    }
    return checkpoint(revision, tree, stateVersion);
  }

  /**
   * The journal bytes written after the newest checkpoint: what a cold open would replay.
   * The caller's checkpoint policy compares it with the size of its data.
   *
   * @return bytes of journal records after the checkpoint's position (all of the journal
   *     without a checkpoint); a lower bound when other processes commit concurrently
   * @throws dev.ledger.core.LedgerException for the backend's own failures
   */
  long journalBytesSinceCheckpoint();
}
