package dev.ledger.testing;

/** Which implementation {@link LedgerStoresExtension} gives a test. */
public enum StoreKind {
  /**
   * {@code FileLedgerStore} or {@code FileArtifactStore} on a fresh temporary directory:
   * real files, real locks and real {@code force} calls.
   */
  FILE,
  /** {@code InMemoryLedgerStore} or {@code InMemoryArtifactStore}: the same contract, no disk. */
  IN_MEMORY
}
