/**
 * The {@code ledger} command line: looks into, checks, follows, exports and cleans a store
 * from a shell. Built as one executable jar run by the {@code ledger} script; it uses only the
 * exported API of {@code dev.ledger.core}, {@code dev.ledger.artifacts},
 * {@code dev.ledger.collections} and {@code dev.ledger.registry}.
 */
module dev.ledger.cli {
  requires dev.ledger.core;
  requires dev.ledger.artifacts;
  requires dev.ledger.collections;
  requires dev.ledger.registry;
  requires com.fasterxml.jackson.databind;
  requires info.picocli;

  // picocli fills the commands' annotated fields by reflection.
  opens dev.ledger.cli to info.picocli;
}
