package dev.ledger.cli;

import java.nio.file.Path;

/** A command that works on a store directory, which its error lines name. */
interface StoreCommand {
  /**
   * The store directory the command was given.
   *
   * @return the directory
   */
  Path dir();
}
