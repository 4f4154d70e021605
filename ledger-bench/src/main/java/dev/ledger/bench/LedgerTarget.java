package dev.ledger.bench;

import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The ledger: {@code FileLedgerStore} with the given (by default, durable) options, or any
 * other store given.
 */
final class LedgerTarget implements CommitTarget {
  private final LedgerStore store;
  private final boolean ownsStore;
  private final Ledger<Workload.BenchState> ledger;
  private long revision;
  private long counter;

  LedgerTarget(Path base, String rootId) {
    this(FileLedgerStore.open(base, LedgerOptions.defaults()), rootId, true);
  }

  /** A target on {@code store}; closing it closes the store only if {@code ownsStore}. */
  LedgerTarget(LedgerStore store, String rootId, boolean ownsStore) {
    this.store = store;
    this.ownsStore = ownsStore;
    this.ledger = store.ledger(rootId, Workload.BenchState.class);
    Optional<Versioned<Workload.BenchState>> current = ledger.find();
    revision = current.map(Versioned::revision).orElse(Ledger.NO_REVISION);
    counter = current.map(v -> v.state().counter()).orElse(0L);
  }

  @Override
  public void commit() {
    counter++;
    revision = ledger.commit(revision, Workload.state(counter), Workload.event(counter))
        .revision();
  }

  @Override
  public void close() {
    if (ownsStore) {
      store.close();
    }
  }
}
