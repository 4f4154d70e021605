/**
 * The kit for tests of code built on ledger, and for other backends: the contract suites
 * every {@code LedgerStore} and {@code ArtifactStore} must pass, with the fault-injecting file
 * system and the settable clock of {@code dev.ledger.testing.base} (required transitively).
 */
module dev.ledger.testing {
  requires transitive dev.ledger.core;
  requires transitive dev.ledger.artifacts;
  requires transitive dev.ledger.testing.base;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;

  exports dev.ledger.testing;

  // JUnit discovers and runs the suites' test methods reflectively.
  opens dev.ledger.testing to org.junit.platform.commons;
}
