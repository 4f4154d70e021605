package dev.ledger.cli;

/** The exit codes of every subcommand; the README lists them too. */
final class ExitCodes {
  /** Done; verify found no damage. */
  static final int OK = 0;
  /** Damage found, or the operation failed for a reason in the data. */
  static final int DATA = 1;
  /** The command line was wrong. */
  static final int USAGE = 2;
  /** The environment: not a store, I/O error, lock timeout, read-only store. */
  static final int ENVIRONMENT = 3;
  /** An unexpected exception: a bug. */
  static final int INTERNAL = 4;

  private ExitCodes() {}
}
