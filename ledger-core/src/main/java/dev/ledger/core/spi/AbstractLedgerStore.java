package dev.ledger.core.spi;

import dev.ledger.core.CommitListener;
import dev.ledger.core.CommitResult;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.google.common.base.Preconditions;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateType;
import dev.ledger.core.StoreClosedException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.io.RootIdCursors;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.internal.metrics.LedgerMeters;
import java.time.Clock;
import java.util.function.IntSupplier;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * What every store shares: one backend per root id, handed out as typed ledgers, and a
 * close that waits for operations in flight and then refuses new ones.
 *
 * @param <B> the backend type
 */
public abstract class AbstractLedgerStore<B extends LedgerBackend> implements LedgerStore {
  private static final Logger LOG = LoggerFactory.getLogger(AbstractLedgerStore.class);
  private final LedgerOptions options;
  private final String name;
  private final ObjectMapper mapper;
  private final ConcurrentHashMap<String, B> backends = new ConcurrentHashMap<>();
  private final ReentrantReadWriteLock closing = new ReentrantReadWriteLock();
  private volatile boolean closed;
  /** Commit listeners, in registration order. */
  private final List<CommitListener> listeners = new CopyOnWriteArrayList<>();
  /** Counts listener failures, for a rate-limited log. */
  private final AtomicLong listenerFailures = new AtomicLong();
  private volatile long lastListenerLog;
  /** Followers not yet closed; the store's close ends them. */
  private final Set<JournalFollower> followers = ConcurrentHashMap.newKeySet();
  /** What the store records; {@link LedgerMeters#NONE} without a meter registry. */
  private final LedgerMeters meters;
  /** What backends count their writes in: {@link #meters}, or nothing without a registry. */
  private final WriteMeter writeMeter;

  /**
   * Creates the store shell.
   *
   * @param options the options the store runs with
   * @param name the store as messages name it ({@code "file store at /data/x"}); appears in
   *     {@link StoreClosedException}
   * @throws NullPointerException if {@code options} or {@code name} is null
   */
  protected AbstractLedgerStore(LedgerOptions options, String name) {
    this(options, name, null);
  }

  /**
   * Creates the store shell of a store that bounds its open writers, which its metrics
   * report (the gauge {@code ledger.writers.open}).
   *
   * @param options the options the store runs with
   * @param name the store as messages name it; appears in {@link StoreClosedException} and
   *     in the {@code store} tag of its gauges
   * @param openWriters how many ledgers hold open files for writing now, or null if the
   *     store keeps none; read when a meter registry is scraped
   * @throws NullPointerException if {@code options} or {@code name} is null
   */
  protected AbstractLedgerStore(LedgerOptions options, String name, IntSupplier openWriters) {
    this.options = Preconditions.checkNotNull(options, "options");
    this.name = Preconditions.checkNotNull(name, "name");
    JsonMapper.Builder builder = LedgerJson.valueMapperBuilder();
    options.mapper().accept(builder);
    this.mapper = builder.build();
    this.meters = LedgerMeters.of(options.meterRegistry(), name, new LedgerMeters.Gauges(
        openWriters, followers::size, this::followLagSeconds));
    this.writeMeter = !meters.recording() ? WriteMeter.NONE : new WriteMeter() {
      @Override
      public void journalWritten(long bytes) {
        meters.journalWritten(bytes);
      }

      @Override
      public void checkpointWritten() {
        meters.checkpointWritten();
      }

      @Override
      public void journalForced() {
        meters.journalForced();
      }
    };
  }

  /** The largest lag of an open follower (see {@link JournalFollower#lagMillis}), in seconds. */
  private double followLagSeconds() {
    Clock clock = options.clock();
    long now = clock.millis();
    long worst = 0;
    for (JournalFollower follower : followers) {
      worst = Math.max(worst, follower.lagMillis(now));
    }
    return worst / 1000.0;
  }

  /** What the store records (nothing without a meter registry). */
  final LedgerMeters meters() {
    return meters;
  }

  /**
   * Where a backend counts what it writes: journal bytes and checkpoints, recorded when the
   * store's options carry a meter registry ({@link LedgerOptions#withMeterRegistry}), and
   * dropped otherwise.
   *
   * @return the store's write meter; {@link WriteMeter#NONE} without a registry
   */
  protected final WriteMeter writeMeter() {
    return writeMeter;
  }

  /** The largest page of {@link #rootIds(RootIdCursor, int)}. */
  private static final int MAX_PAGE = 1000;

  /**
   * Creates the backend of a root id. Must not touch the disk. Besides the backends it
   * hands out, the store creates one for a single {@link LedgerBackend#exists()} or
   * {@link LedgerBackend#head()} of a root id it holds no backend of, and then drops it
   * without closing it: a backend must hold nothing until it commits.
   *
   * @param rootId the root id, already validated
   * @return the backend
   */
  protected abstract B newBackend(String rootId);

  /**
   * Releases the backends; called once, with no operation in flight.
   *
   * @param backends every backend handed out
   */
  protected abstract void closeBackends(Collection<B> backends);

  @Override
  public final <S> Ledger<S> ledger(String rootId, StateType<S> stateType) {
    Identifiers.check("root id", rootId);
    Preconditions.checkNotNull(stateType, "stateType");
    return guarded(() -> new TypedLedger<>(this, backends.computeIfAbsent(rootId,
        this::newBackend), stateType));
  }

  @Override
  public final boolean exists(String rootId) {
    Identifiers.check("root id", rootId);
    return guarded(() -> probe(rootId).exists());
  }

  @Override
  public final Optional<LedgerHead> head(String rootId) {
    Identifiers.check("root id", rootId);
    return guarded(() -> probe(rootId).head());
  }

  @Override
  public final boolean delete(String rootId) {
    Identifiers.check("root id", rootId);
    return guarded(() -> deleteLedger(rootId, backends.get(rootId)));
  }

  /**
   * Deletes the ledger of {@code rootId} as {@link LedgerStore#delete} says; called with the
   * store open. Afterwards {@code handedOut}, if not null, must behave as the backend of a
   * ledger never committed to (it stays registered: the store's ledgers keep using it).
   *
   * @param rootId the root id, already validated
   * @param handedOut the backend this store handed out for {@code rootId}, or null
   * @return true if the ledger existed and is now deleted
   */
  protected abstract boolean deleteLedger(String rootId, B handedOut);

  /** The backend handed out for {@code rootId}, or a throwaway one (never registered). */
  private B probe(String rootId) {
    B backend = backends.get(rootId);
    return backend != null ? backend : newBackend(rootId);
  }

  @Override
  public final RootIdPage rootIds(RootIdCursor after, int limit) {
    Preconditions.checkNotNull(after, "after");
    Preconditions.checkArgument(limit >= 1 && limit <= MAX_PAGE,
        "limit must be between 1 and %s: %s", MAX_PAGE, limit);
    String last = RootIdCursors.lastRootId(after);
    return guarded(() -> {
      List<String> ids = rootIdsAfter(last, limit + 1);
      boolean more = ids.size() > limit;
      List<String> page = more ? ids.subList(0, limit) : ids;
      return new RootIdPage(page, page.isEmpty() ? after
          : RootIdCursors.after(page.get(page.size() - 1)), more);
    });
  }

  /**
   * Up to {@code max} root ids of ledgers committed to that sort after {@code after}, in
   * sorted order; called with the store open. This implementation filters
   * {@link #rootIds()}; a store that can list in order, or keep fewer ids in memory, does
   * better.
   *
   * @param after the root id to list after (exclusive), or the empty string for the first
   * @param max the largest number of root ids to return, at least 1
   * @return the root ids, sorted
   */
  protected List<String> rootIdsAfter(String after, int max) {
    return rootIds().stream().filter(id -> id.compareTo(after) > 0).limit(max).toList();
  }

  /**
   * The backend of {@code rootId}, created if none was handed out yet (for store operations
   * that work on a ledger without a typed view, such as an import). Call it inside
   * {@link #guarded}.
   *
   * @param rootId the root id
   * @return the backend
   * @throws NullPointerException if {@code rootId} is null
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   */
  protected final B backend(String rootId) {
    Identifiers.check("root id", rootId);
    return backends.computeIfAbsent(rootId, this::newBackend);
  }

  /** Opens a follower of {@code backend} and keeps it until it or the store closes. */
  final JournalFollower follow(LedgerBackend backend, dev.ledger.core.Cursor after,
      int pageSize) {
    return guarded(() -> {
      JournalFollower follower = new JournalFollower(this, backend, after, pageSize);
      followers.add(follower);
      return follower;
    });
  }

  /** Drops a closed follower. */
  final void forget(JournalFollower follower) {
    followers.remove(follower);
  }

  /** The mapper states are converted with: the library's settings, then the customizer's. */
  final ObjectMapper mapper() {
    return mapper;
  }

  /**
   * The backends handed out so far.
   *
   * @return a live view
   */
  protected final Collection<B> backends() {
    return backends.values();
  }

  @Override
  public final LedgerOptions options() {
    return options;
  }

  /**
   * Runs {@code operation} unless the store is closed; close waits for it to finish.
   *
   * @param operation what to run
   * @param <T> what it returns
   * @return what it returned
   * @throws NullPointerException if {@code operation} is null
   * @throws StoreClosedException if the store is closed
   */
  public final <T> T guarded(Supplier<T> operation) {
    Preconditions.checkNotNull(operation, "operation");
    closing.readLock().lock();
    try {
      if (closed) {
        throw new StoreClosedException(name);
      }
      return operation.get();
    } finally {
      closing.readLock().unlock();
    }
  }

  @Override
  public final void close() {
    closing.writeLock().lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      // Followers end first: a waiting one wakes and throws StoreClosedException.
      for (JournalFollower follower : List.copyOf(followers)) {
        follower.fail(new StoreClosedException(name));
      }
      try {
        closeBackends(backends.values());
      } finally {
        meters.close();
      }
    } finally {
      closing.writeLock().unlock();
    }
  }

  /**
   * Registers a listener told of every commit this store makes from now on (see
   * {@link CommitListener} for when and how it is called). Registering one listener twice
   * tells it twice.
   *
   * @param listener the listener
   * @throws NullPointerException if {@code listener} is null
   */
  public final void addCommitListener(CommitListener listener) {
    listeners.add(Preconditions.checkNotNull(listener, "listener"));
  }

  /**
   * Removes a listener registered with {@link #addCommitListener} (one registration of it).
   *
   * @param listener the listener
   * @return whether it was registered
   * @throws NullPointerException if {@code listener} is null
   */
  public final boolean removeCommitListener(CommitListener listener) {
    return listeners.remove(Preconditions.checkNotNull(listener, "listener"));
  }

  /**
   * Tells every registered listener of a durable commit; a backend calls it under the
   * ledger's writer lock, after the commit's force. Never throws: a listener's failure is
   * counted and logged at most once a minute.
   *
   * @param result the commit's result
   */
  protected final void committed(CommitResult result) {
    for (CommitListener listener : listeners) {
      try {
        listener.committed(result);
      } catch (RuntimeException e) {
        long failures = listenerFailures.incrementAndGet();
        long now = System.nanoTime();
        if (now - lastListenerLog > TimeUnit.MINUTES.toNanos(1) || failures == 1) {
          lastListenerLog = now;
          LOG.warn("{}: commit listener {} failed ({} failures so far); the commit of "
              + "ledger '{}' revision {} stands", name, listener, failures, result.rootId(),
              result.revision(), e);
        }
      }
    }
  }

  /**
   * The sink a backend hands each durable commit to ({@link #committed}).
   *
   * @return a listener that tells every registered one
   */
  protected final CommitListener commitListeners() {
    return this::committed;
  }

  @Override
  public String toString() {
    return name;
  }
}
