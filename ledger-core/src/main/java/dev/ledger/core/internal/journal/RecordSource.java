package dev.ledger.core.internal.journal;

import java.io.Closeable;

/** Commit records in journal order, read lazily. Not thread-safe; close when done. */
public interface RecordSource extends Closeable {
  /** The next committed record, or null at the end of what is committed. */
  PositionedRecord next();

  @Override
  void close();
}
