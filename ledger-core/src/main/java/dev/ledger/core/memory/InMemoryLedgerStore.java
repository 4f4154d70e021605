package dev.ledger.core.memory;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import dev.ledger.core.CommitResult;
import dev.ledger.core.ImportResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.CommitListener;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.RetentionResult;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateType;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.LedgerExportFormat;
import dev.ledger.core.spi.AbstractLedgerStore;
import dev.ledger.core.spi.LoggedCommit;
import dev.ledger.core.spi.PatchLog;
import dev.ledger.core.spi.PatchLogSource;
import dev.ledger.core.spi.PatchRequest;
import dev.ledger.core.spi.StoredState;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * A {@link dev.ledger.core.LedgerStore} in memory, for tests that need no disk. It keeps the
 * same contract as the file store (revisions, command replay and conflicts, cursors, limits,
 * closing), records commits in the same journal line format, and with a fixed clock produces
 * the same events and results. Nothing survives the JVM. Thread-safe.
 *
 * <p>It is also a {@link PatchLogSource}: the patch log of a root shares the ledger that
 * {@link #ledger} hands out, so a {@code Ledger} reads the state folded from patch commits.
 */
public final class InMemoryLedgerStore implements LedgerStore, PatchLogSource {
  private static final AtomicLong NUMBER = new AtomicLong();

  private final Ledgers shell;

  private InMemoryLedgerStore(LedgerOptions options) {
    shell = new Ledgers(options, "in-memory store #" + NUMBER.incrementAndGet());
  }

  /**
   * A new, empty store with default options.
   *
   * @return the store
   */
  public static InMemoryLedgerStore create() {
    return new InMemoryLedgerStore(LedgerOptions.defaults());
  }

  /**
   * A new, empty store with {@code options} (durability is meaningless here).
   *
   * @param options the options (clock, limits, lock timeout, update retries)
   * @return the store
   * @throws NullPointerException if {@code options} is null
   */
  public static InMemoryLedgerStore create(LedgerOptions options) {
    return new InMemoryLedgerStore(Preconditions.checkNotNull(options, "options"));
  }

  @Override
  public <S> Ledger<S> ledger(String rootId, StateType<S> stateType) {
    return shell.ledger(rootId, stateType);
  }

  @Override
  public List<String> rootIds() {
    return shell.rootIds();
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory: every call on the returned log runs as a store operation, refused with
   * {@link dev.ledger.core.StoreClosedException} once the store is closed. Patch records are
   * kept as journal lines like every other commit; the checkpoint is a copy in memory.
   */
  @Override
  public PatchLog patchLog(String rootId) {
    MemoryLedger ledger = shell.guarded(() -> shell.open(rootId));
    return new GuardedPatchLog(shell, ledger);
  }

  @Override
  public RootIdPage rootIds(RootIdCursor after, int limit) {
    return shell.rootIds(after, limit);
  }

  @Override
  public boolean exists(String rootId) {
    return shell.exists(rootId);
  }

  @Override
  public Optional<LedgerHead> head(String rootId) {
    return shell.head(rootId);
  }

  @Override
  public LedgerOptions options() {
    return shell.options();
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory: the ledger's records up to the revision current at the call, encoded as
   * the file store encodes them.
   */
  @Override
  public long export(String rootId, OutputStream out) {
    return shell.export(rootId, out);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory: the input is read and checked whole, then the ledger's records, command
   * index and state are published at once under the ledger's writer lock (the commit point),
   * so a reader sees no ledger or all of it.
   */
  @Override
  public ImportResult importLedger(InputStream in) {
    return shell.importLedger(in);
  }

  /**
   * Applies a retention policy to one ledger: drops the records before the first revision
   * the policy keeps (see {@link RetentionPolicy}; the latest commit and the state are always
   * kept), under the ledger's writer lock. Record by record, where the file store removes
   * whole segments; otherwise the same rules as
   * {@link dev.ledger.core.fs.FileLedgerStore#applyRetention}: reads from
   * {@link dev.ledger.core.Cursor#START} start at the first retained event, a cursor into
   * dropped history throws {@link dev.ledger.core.HistoryTruncatedException}, a command whose
   * record was dropped replays with its revision and no events, and export is refused.
   *
   * @param rootId the ledger
   * @param policy what to keep
   * @return what was dropped ({@code segmentsRemoved} is 0; {@code bytesRemoved} counts the
   *     record lines) and where the journal now starts
   * @throws dev.ledger.core.LedgerNotFoundException if the store holds no such ledger
   * @throws dev.ledger.core.LockTimeoutException if the ledger's writer is busy past the lock
   *     timeout
   * @throws dev.ledger.core.InvalidIdentifierException if {@code rootId} is not valid
   * @throws NullPointerException if {@code rootId} or {@code policy} is null
   * @throws dev.ledger.core.StoreClosedException if the store is closed
   */
  public RetentionResult applyRetention(String rootId, RetentionPolicy policy) {
    Preconditions.checkNotNull(rootId, "rootId");
    Preconditions.checkNotNull(policy, "policy");
    return shell.guarded(() -> shell.retainIn(rootId).applyRetention(policy));
  }

  /**
   * Registers a listener told of every commit this store makes from now on: once per
   * commit, in commit order for each ledger, on the committing thread (see
   * {@link CommitListener}; {@link dev.ledger.core.fs.TraceSink} is one). What it throws never
   * fails a commit.
   *
   * @param listener the listener
   * @throws NullPointerException if {@code listener} is null
   */
  public void addCommitListener(CommitListener listener) {
    shell.addCommitListener(listener);
  }

  /**
   * Removes a listener registered with {@link #addCommitListener}.
   *
   * @param listener the listener
   * @return whether it was registered
   * @throws NullPointerException if {@code listener} is null
   */
  public boolean removeCommitListener(CommitListener listener) {
    return shell.removeCommitListener(listener);
  }

  /**
   * {@inheritDoc}
   *
   * <p>In memory: the ledger's records, command index and state are dropped at once under
   * its writer lock (the commit point); a reader sees the whole ledger or none. Handles of
   * this store then see a ledger never committed to.
   */
  @Override
  public boolean delete(String rootId) {
    return shell.delete(rootId);
  }

  @Override
  public void close() {
    shell.close();
  }

  @Override
  public String toString() {
    return shell.toString();
  }

  /** A patch log whose every call is a guarded store operation. */
  private record GuardedPatchLog(Ledgers shell, MemoryLedger ledger) implements PatchLog {
    @Override
    public String rootId() {
      return ledger.rootId();
    }

    @Override
    public Optional<StoredState> checkpoint() {
      return shell.guarded(ledger::checkpoint);
    }

    @Override
    public Stream<LoggedCommit> commitsAfter(long revision) {
      return shell.guarded(() -> ledger.commitsAfter(revision));
    }

    @Override
    public List<CommitResult> commitPatches(List<PatchRequest> batch) {
      return shell.guarded(() -> ledger.commitPatches(batch));
    }

    @Override
    public CommitResult commitPatch(PatchRequest request) {
      return shell.guarded(() -> ledger.commitPatch(request));
    }

    @Override
    public boolean checkpoint(long revision, JsonNode state, int stateVersion) {
      return shell.guarded(() -> ledger.checkpoint(revision, state, stateVersion));
    }

    @Override
    public long journalBytesSinceCheckpoint() {
      return shell.guarded(ledger::journalBytesSinceCheckpoint);
    }
  }

  /** The shared store shell over the in-memory ledgers. */
  private static final class Ledgers extends AbstractLedgerStore<MemoryLedger> {
    Ledgers(LedgerOptions options, String name) {
      super(options, name);
    }

    MemoryLedger open(String rootId) {
      return backend(rootId);
    }

    @Override
    protected MemoryLedger newBackend(String rootId) {
      MemoryLedger ledger = new MemoryLedger(rootId, options());
      ledger.listen(commitListeners());
      ledger.meter(writeMeter());
      return ledger;
    }

    @Override
    public List<String> rootIds() {
      return guarded(() -> backendsWithCommits());
    }

    /** The backend of {@code rootId}, for a retention. */
    MemoryLedger retainIn(String rootId) {
      return backend(rootId);
    }

    private List<String> backendsWithCommits() {
      return backends().stream().filter(MemoryLedger::exists).map(MemoryLedger::rootId)
          .sorted().toList();
    }

    @Override
    public long export(String rootId, OutputStream out) {
      Preconditions.checkNotNull(rootId, "rootId");
      Preconditions.checkNotNull(out, "out");
      return guarded(() -> backend(rootId).export(options().clock().instant(), out));
    }

    @Override
    public ImportResult importLedger(InputStream in) {
      Preconditions.checkNotNull(in, "in");
      return guarded(() -> {
        LedgerExportFormat.Lines lines = new LedgerExportFormat.Lines(in,
            JournalLine.maxLineBytes(options()));
        LedgerExportFormat.Header header = LedgerExportFormat.readHeader(lines);
        MemoryLedger ledger = backend(header.root());
        if (ledger.exists()) {
          throw new LedgerExistsException(header.root(), "the store holds it");
        }
        return ledger.adopt(lines, header);
      });
    }

    @Override
    protected boolean deleteLedger(String rootId, MemoryLedger handedOut) {
      return handedOut != null && handedOut.delete();
    }

    @Override
    protected void closeBackends(Collection<MemoryLedger> backends) {
      // Nothing to release.
    }
  }
}
