/**
 * Test infrastructure with no dependency on ledger itself, so that ledger's own tests use it
 * too: {@code dev.ledger.testing.fault} (a file system that fails the n-th operation of a
 * kind or loses what was not forced, and {@code FaultLoop}, which crashes a piece of code at
 * each such operation in turn) and {@code dev.ledger.testing.base} (a settable clock, child
 * JVMs with a deadline on every wait, the seed of randomized tests, and snapshots of
 * directory trees that say what an operation changed on disk). Users reach it
 * through {@code dev.ledger.testing}, which requires it transitively.
 */
module dev.ledger.testing.base {
  requires transitive org.junit.jupiter.api;

  exports dev.ledger.testing.base;
  exports dev.ledger.testing.fault;

  // JUnit instantiates SeedExtension reflectively.
  opens dev.ledger.testing.base to org.junit.platform.commons;
}
