package dev.ledger.core.memory;

import com.google.common.base.Preconditions;
import dev.ledger.core.ImportResult;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerExistsException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RootIdCursor;
import dev.ledger.core.RootIdPage;
import dev.ledger.core.StateType;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.journal.LedgerExportFormat;
import dev.ledger.core.spi.AbstractLedgerStore;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link dev.ledger.core.LedgerStore} in memory, for tests that need no disk. It keeps the
 * same contract as the file store (revisions, command replay and conflicts, cursors, limits,
 * closing), records commits in the same journal line format, and with a fixed clock produces
 * the same events and results. Nothing survives the JVM. Thread-safe.
 */
public final class InMemoryLedgerStore implements LedgerStore {
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

  /** The shared store shell over the in-memory ledgers. */
  private static final class Ledgers extends AbstractLedgerStore<MemoryLedger> {
    Ledgers(LedgerOptions options, String name) {
      super(options, name);
    }

    @Override
    protected MemoryLedger newBackend(String rootId) {
      return new MemoryLedger(rootId, options());
    }

    @Override
    public List<String> rootIds() {
      return guarded(() -> backendsWithCommits());
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
