package dev.ledger.testing.fault;

/** Whether an I/O error planned with {@link FaultyFileSystem#failAt} happens once or stays. */
public enum Persistence {
  /** Only the planned operation fails; later ones of its kind succeed (a transient error). */
  TRANSIENT,
  /** The planned operation and every later one of its kind fail (a dead disk or a full one). */
  PERSISTENT
}
