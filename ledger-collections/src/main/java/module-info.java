/**
 * Typed collections with primary keys and queries, FIFO queues and key-value counters, kept
 * per partition on a ledger's patch log and changed together in atomic transactions: the API
 * in {@code dev.ledger.collections}; its implementation on a ledger's patch log in
 * {@code dev.ledger.collections.patchlog}, which runs on any store that is a
 * {@code PatchLogSource} (the file store, the in-memory store for tests).
 */
@SuppressWarnings("requires-automatic") // Micrometer names itself in its manifest
module dev.ledger.collections {
  requires transitive dev.ledger.core;
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires com.google.common;
  requires org.slf4j;
  // Optional: only a store given a meter registry loads Micrometer. Not transitive: a module
  // that calls withMeterRegistry has a registry, so it reads Micrometer itself, and every
  // other module compiles and runs without it.
  requires static micrometer.core;

  exports dev.ledger.collections;
  exports dev.ledger.collections.patchlog;
}
