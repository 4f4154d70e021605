/**
 * Content-addressed blobs and first-write-wins attempt snapshots: the API in
 * {@code dev.ledger.artifacts}, the file store in {@code dev.ledger.artifacts.fs}, the
 * in-memory twin for tests in {@code dev.ledger.artifacts.memory}.
 */
// Micrometer names itself in its manifest; qualified exports name modules built after this one
@SuppressWarnings({"module", "requires-automatic"})
module dev.ledger.artifacts {
  requires transitive dev.ledger.core;
  requires transitive com.fasterxml.jackson.databind;
  requires com.google.common;
  requires org.slf4j;
  // Optional: only a store given a meter registry loads Micrometer. Not transitive: a module
  // that calls withMeterRegistry has a registry, so it reads Micrometer itself, and every
  // other module compiles and runs without it.
  requires static micrometer.core;

  exports dev.ledger.artifacts;
  exports dev.ledger.artifacts.fs;
  exports dev.ledger.artifacts.memory;
  // The meters the library's own artifact stores share; no promise to anyone else.
  exports dev.ledger.artifacts.internal to dev.ledger.postgres;

  opens dev.ledger.artifacts to com.fasterxml.jackson.databind;
}
