/**
 * Test infrastructure with no dependency on ledger itself: {@code dev.ledger.testing.fault}
 * (a file system that fails the Nth operation or loses what was not forced) and
 * {@code dev.ledger.testing.base} (a settable clock, child JVMs with deadlines, the seed of
 * randomized tests). Users reach it through {@code dev.ledger.testing}, which requires it
 * transitively.
 */
module dev.ledger.testing.base {
  exports dev.ledger.testing.base;
  exports dev.ledger.testing.fault;
}
