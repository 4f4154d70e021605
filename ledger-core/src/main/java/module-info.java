/**
 * Ledgers with optimistic revisions, an append-only event journal read through opaque
 * cursors, and the stores that keep them: {@code dev.ledger.core.fs} (files),
 * {@code dev.ledger.core.memory} (tests), and the backend SPI {@code dev.ledger.core.spi} for
 * other stores. Everything under {@code dev.ledger.core.internal} is private to the library.
 */
// qualified exports name modules built after this one; Micrometer names itself in its manifest
@SuppressWarnings({"module", "requires-automatic"})
module dev.ledger.core {
  requires transitive com.fasterxml.jackson.databind;
  requires com.fasterxml.jackson.datatype.jsr310;
  requires com.google.common;
  requires java.management;
  requires org.slf4j;
  // Optional: only a store given a meter registry loads Micrometer. Not transitive: a module
  // that calls withMeterRegistry has a registry, so it reads Micrometer itself, and every
  // other module compiles and runs without it.
  requires static micrometer.core;

  exports dev.ledger.core;
  exports dev.ledger.core.fs;
  exports dev.ledger.core.lifecycle;
  exports dev.ledger.core.memory;
  exports dev.ledger.core.spi;

  // Helpers the library's own modules share; no promise to anyone else.
  exports dev.ledger.core.internal.io to dev.ledger.artifacts, dev.ledger.postgres;
  exports dev.ledger.core.internal.json to dev.ledger.artifacts, dev.ledger.collections,
      dev.ledger.postgres;
  exports dev.ledger.core.internal.journal to dev.ledger.postgres;

  // Jackson maps the library's value records (events, states that embed them).
  opens dev.ledger.core to com.fasterxml.jackson.databind;
}
