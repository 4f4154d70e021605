/**
 * The kit for tests of code built on ledger, and for other backends: the contract suites
 * every {@code LedgerStore}, {@code ArtifactStore}, {@code CollectionStore} and
 * {@code RunRegistry} must pass; a
 * JUnit 5 extension that gives a test its stores on a temporary directory or in memory, on a
 * clock the test moves; golden-directory assertions; and, from
 * {@code dev.ledger.testing.base} (required transitively), the fault-injecting file system,
 * the crash loop, child JVMs and seeds.
 */
module dev.ledger.testing {
  requires transitive dev.ledger.core;
  requires transitive dev.ledger.artifacts;
  requires transitive dev.ledger.collections;
  requires transitive dev.ledger.registry;
  requires transitive dev.ledger.testing.base;
  requires transitive org.junit.jupiter.api;
  requires transitive org.assertj.core;

  exports dev.ledger.testing;

  // JUnit discovers and runs the suites' test methods reflectively.
  opens dev.ledger.testing to org.junit.platform.commons;
}
