package dev.ledger.core.spi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.common.base.Preconditions;
import dev.ledger.core.Change;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.StateMappingException;
import dev.ledger.core.StateType;
import dev.ledger.core.Versioned;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.internal.json.StringSizes;
import dev.ledger.core.internal.metrics.LedgerMeters;
import dev.ledger.core.CommandConflictException;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/**
 * {@link Ledger} over any {@link LedgerBackend}: maps states with the store's mapper and
 * upcasts them by the {@link StateType}, enforces the size limits and argument rules, derives
 * the command id and digest, and runs the {@link #update} retry loop. Thread-safe if the
 * backend is.
 *
 * @param <S> the state type
 */
public final class TypedLedger<S> implements Ledger<S> {
  private static final int MAX_PAGE = 1000;

  private final AbstractLedgerStore<?> store;
  private final LedgerBackend backend;
  private final StateType<S> type;
  private final ObjectMapper mapper;
  private final JavaType javaType;
  private final LedgerOptions options;
  private final LedgerMeters meters;
  /**
   * The sizes of the long strings of the last state this view committed: the next state of
   * the ledger mostly holds the same strings, which then need no second count.
   */
  private final StringSizes stateSizes = new StringSizes();

  TypedLedger(AbstractLedgerStore<?> store, LedgerBackend backend, StateType<S> type) {
    this.store = store;
    this.backend = backend;
    this.type = type;
    this.mapper = store.mapper();
    this.javaType = mapper.getTypeFactory().constructType(type.type());
    this.options = store.options();
    this.meters = store.meters();
  }

  @Override
  public String rootId() {
    return backend.rootId();
  }

  @Override
  public Versioned<S> load() {
    return find().orElseThrow(() -> new LedgerNotFoundException(rootId()));
  }

  @Override
  public Optional<Versioned<S>> find() {
    if (!meters.recording()) {
      return read();
    }
    long start = System.nanoTime();
    Optional<Versioned<S>> found;
    try {
      found = read();
    } catch (RuntimeException | Error e) {
      meters.load(start, false, e);
      throw e;
    }
    meters.load(start, found.isPresent(), null);
    return found;
  }

  private Optional<Versioned<S>> read() {
    return store.guarded(() -> backend.read()).map(stored -> new Versioned<>(map(stored),
        stored.revision(), stored.updatedAt()));
  }

  /** The stored state brought up to the declared version and mapped to the state type. */
  private S map(StoredState stored) {
    int version = stored.stateVersion();
    if (version > type.version()) {
      throw mappingFailure(stored, "", "it was written with state version " + version
          + ", newer than the " + type.version() + " declared here", null);
    }
    JsonNode tree = stored.state();
    if (version < type.version()) {
      tree = tree.deepCopy();
      List<UnaryOperator<JsonNode>> upcasters = type.upcasters();
      for (int v = version; v < upcasters.size(); v++) {
        JsonNode next;
        try {
          next = upcasters.get(v).apply(tree);
        } catch (RuntimeException e) {
          throw mappingFailure(stored, "", "the upcaster from state version " + v
              + " failed: " + e, e);
        }
        if (next == null) {
          throw mappingFailure(stored, "", "the upcaster from state version " + v
              + " returned null", null);
        }
        tree = next;
      }
    }
    try {
      return LedgerJson.convert(mapper, tree, javaType);
    } catch (JsonProcessingException e) {
      throw mappingFailure(stored, LedgerJson.pointer(e), e.getOriginalMessage(), e);
    }
  }

  private StateMappingException mappingFailure(StoredState stored, String path, String problem,
      Throwable cause) {
    return new StateMappingException(rootId(), stored.revision(), type.toString(), path,
        problem, cause);
  }

  @Override
  public CommitResult commit(long expectedRevision, S newState, List<EventDraft> events) {
    Preconditions.checkArgument(expectedRevision >= 0,
        "expectedRevision must be >= 0 (Ledger.NO_REVISION to create): %s", expectedRevision);
    Preconditions.checkNotNull(newState, "newState");
    Preconditions.checkNotNull(events, "events");
    if (!meters.recording()) {
      CommitRequest request = request(expectedRevision, newState, events);
      return store.guarded(() -> backend.commit(request));
    }
    long start = System.nanoTime();
    CommitResult result;
    try {
      CommitRequest request = request(expectedRevision, newState, events);
      result = store.guarded(() -> backend.commit(request));
    } catch (RevisionConflictException | CommandConflictException e) {
      meters.commit(start, LedgerMeters.Outcome.CONFLICT, e);
      throw e;
    } catch (RuntimeException | Error e) {
      meters.commit(start, LedgerMeters.Outcome.ERROR, e);
      throw e;
    }
    meters.commit(start, result.replayed() ? LedgerMeters.Outcome.REPLAYED
        : LedgerMeters.Outcome.COMMITTED, null);
    return result;
  }

  @Override
  public Versioned<S> update(Function<? super S, Change<S>> change) {
    Preconditions.checkNotNull(change, "change");
    RevisionConflictException last = null;
    for (int attempt = 0; attempt < options.updateAttempts(); attempt++) {
      if (attempt > 0) {
        meters.updateRetry();
        backoff(attempt);
      }
      try {
        return store.guarded(() -> attempt(change));
      } catch (RevisionConflictException e) {
        if (last != null) {
          e.addSuppressed(last);
        }
        last = e;
      }
    }
    throw last;
  }

  /**
   * What one attempt of an update did in its turn: the version it loaded, the change it
   * decided, and, unless that was none, its commit (not yet durable) and when it started.
   */
  private record Written<S>(Versioned<S> loaded, Change<S> change, PendingCommit pending,
      long start) {}

  /**
   * One attempt of {@link #update}: load, change and append in the backend's update turn
   * (so that updates through this store do not conflict with each other), then, with the
   * turn given up, the wait for the force, which the next attempts' commits share.
   */
  private Versioned<S> attempt(Function<? super S, Change<S>> change) {
    Written<S> written = backend.inUpdateTurn(options.lockTimeout(), () -> write(change));
    if (written.pending() == null) {
      return written.loaded();
    }
    CommitResult result;
    try {
      result = written.pending().awaitDurable();
    } catch (RuntimeException | Error e) {
      if (meters.recording()) {
        meters.commit(written.start(), LedgerMeters.Outcome.ERROR, e);
      }
      throw e;
    }
    if (meters.recording()) {
      meters.commit(written.start(), result.replayed() ? LedgerMeters.Outcome.REPLAYED
          : LedgerMeters.Outcome.COMMITTED, null);
    }
    if (result.replayed()) {
      // The command was done before: what it committed then is history, not this state.
      return load();
    }
    return new Versioned<>(written.change().state(), result.revision(), result.committedAt());
  }

  /** Loads, asks {@code change}, and appends what it decided, if anything. */
  private Written<S> write(Function<? super S, Change<S>> change) {
    Versioned<S> current = load();
    Change<S> decided = change.apply(current.state());
    Preconditions.checkNotNull(decided,
        "update function returned null for ledger '%s' (return Change.none() for no change)",
        rootId());
    if (decided.isNone()) {
      return new Written<>(current, decided, null, 0);
    }
    long start = System.nanoTime();
    try {
      CommitRequest request = request(current.revision(), decided.state(), decided.events());
      return new Written<>(current, decided, backend.append(request), start);
    } catch (RevisionConflictException | CommandConflictException e) {
      if (meters.recording()) {
        meters.commit(start, LedgerMeters.Outcome.CONFLICT, e);
      }
      throw e;
    } catch (RuntimeException | Error e) {
      if (meters.recording()) {
        meters.commit(start, LedgerMeters.Outcome.ERROR, e);
      }
      throw e;
    }
  }

  @Override
  public long firstRetainedSequence() {
    return store.guarded(backend::firstRetainedSequence);
  }

  @Override
  public Optional<CommitResult> command(String commandId) {
    Preconditions.checkNotNull(commandId, "commandId");
    Preconditions.checkArgument(!commandId.isEmpty()
        && commandId.length() <= EventDraft.MAX_NAME_LENGTH,
        "command id must have 1 to %s characters, got %s", EventDraft.MAX_NAME_LENGTH,
        commandId.length());
    String id = CommitRequest.publicCommandId(commandId);
    return store.guarded(() -> backend.command(id));
  }

  @Override
  public EventPage events(Cursor after, int limit) {
    Preconditions.checkNotNull(after, "after");
    Preconditions.checkArgument(limit >= 1 && limit <= MAX_PAGE,
        "limit must be between 1 and %s, got %s", MAX_PAGE, limit);
    if (!meters.recording()) {
      return store.guarded(() -> backend.events(after, limit));
    }
    long start = System.nanoTime();
    EventPage page;
    try {
      page = store.guarded(() -> backend.events(after, limit));
    } catch (RuntimeException | Error e) {
      meters.events(start, e);
      throw e;
    }
    meters.events(start, null);
    return page;
  }

  @Override
  public Stream<Event> replay(Cursor after) {
    Preconditions.checkNotNull(after, "after");
    return store.guarded(() -> backend.replay(after));
  }

  @Override
  public EventFollower follow(Cursor after, int pageSize) {
    Preconditions.checkNotNull(after, "after");
    Preconditions.checkArgument(pageSize >= 1 && pageSize <= MAX_PAGE,
        "pageSize must be between 1 and %s, got %s", MAX_PAGE, pageSize);
    return store.follow(backend, after, pageSize);
  }

  private CommitRequest request(long expectedRevision, S newState, List<EventDraft> drafts) {
    JsonNode tree = LedgerJson.sortedTree(mapper, newState);
    int stateBytes = stateSizes.canonicalSize(tree);
    if (stateBytes > options.maxStateBytes()) {
      throw new LimitExceededException(rootId(), "state", options.maxStateBytes(),
          stateBytes);
    }
    JsonNode state;
    // The tree a re-read of the bytes gives, without the re-read where it can; only then are
    // its canonical bytes the tree's, whose size was counted above.
    JsonNode normal = LedgerJson.normalizedInPlace(tree);
    boolean stateBytesExact = normal != null;
    try {
      state = normal != null ? normal : LedgerJson.reread(tree);
    } catch (IOException e) {
      // LedgerJson.tree refuses what the reader would; this is the last line of defence.
      throw new IllegalArgumentException("state of ledger '" + rootId()
          + "' cannot be stored: its JSON would not read back (" + e.getMessage() + ")", e);
    }
    String commandId = null;
    for (int i = 0; i < drafts.size(); i++) {
      EventDraft draft = Preconditions.checkNotNull(drafts.get(i), "event draft %s is null", i);
      int size = LedgerJson.canonicalSize(draft.payload());
      if (size > options.maxEventPayloadBytes()) {
        throw new LimitExceededException(rootId(), "payload of event " + i + " ("
            + draft.type() + ")", options.maxEventPayloadBytes(), size);
      }
      if (draft.commandId() != null) {
        Preconditions.checkArgument(commandId == null || commandId.equals(draft.commandId()),
            "all events of one commit must carry the same command id, got '%s' and '%s'",
            commandId, draft.commandId());
        commandId = draft.commandId();
      }
    }
    if (commandId == null) {
      return new CommitRequest(expectedRevision, state, stateBytes, type.version(),
          drafts, null, null, stateBytesExact);
    }
    return new CommitRequest(expectedRevision, state, stateBytes, type.version(),
        drafts, CommitRequest.publicCommandId(commandId), CommandDigests.intent(drafts),
        stateBytesExact);
  }

  private void backoff(int attempt) {
    long baseNanos = options.updateBackoff().toNanos();
    if (baseNanos == 0) {
      return;
    }
    long ceiling = Math.min(baseNanos << Math.min(attempt, 16), TimeUnit.MILLISECONDS.toNanos(200));
    long pause = ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1);
    try {
      TimeUnit.NANOSECONDS.sleep(pause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while backing off in update of ledger '"
          + rootId() + "'", e);
    }
  }
}
