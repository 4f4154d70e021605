package dev.ledger.core.memory;

import dev.ledger.core.LedgerOptions;
import dev.ledger.core.spi.AbstractLedgerStore;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A {@link dev.ledger.core.LedgerStore} in memory, for tests that need no disk. It keeps the
 * same contract as the file store (revisions, command replay and conflicts, cursors, limits,
 * closing), records commits in the same journal line format, and with a fixed clock produces
 * the same events and results. Nothing survives the JVM. Thread-safe.
 */
public final class InMemoryLedgerStore extends AbstractLedgerStore<MemoryLedger> {
  private static final AtomicLong NUMBER = new AtomicLong();

  private InMemoryLedgerStore(LedgerOptions options) {
    super(options, "in-memory store #" + NUMBER.incrementAndGet());
  }

  /** A new, empty store with default options. */
  public static InMemoryLedgerStore create() {
    return new InMemoryLedgerStore(LedgerOptions.defaults());
  }

  /** A new, empty store with {@code options} (durability is meaningless here). */
  public static InMemoryLedgerStore create(LedgerOptions options) {
    return new InMemoryLedgerStore(options);
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
  protected void closeBackends(Collection<MemoryLedger> backends) {
    // Nothing to release.
  }
}
