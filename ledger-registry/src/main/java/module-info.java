/**
 * A run registry for orchestrators of long external jobs: workspaces, runs with a guarded
 * lifecycle and a revision guard, an event per transition, attempts grouped into lineages,
 * queries by status. The API is {@code dev.ledger.registry}; its implementation on
 * ledger-collections is {@code dev.ledger.registry.collections}.
 */
module dev.ledger.registry {
  requires transitive dev.ledger.core;
  requires transitive dev.ledger.collections;
  requires transitive com.fasterxml.jackson.databind;
  requires com.google.common;

  exports dev.ledger.registry;
  exports dev.ledger.registry.collections;

  // Jackson maps the registry's stored documents and public records.
  opens dev.ledger.registry to com.fasterxml.jackson.databind;
  opens dev.ledger.registry.collections to com.fasterxml.jackson.databind;
}
