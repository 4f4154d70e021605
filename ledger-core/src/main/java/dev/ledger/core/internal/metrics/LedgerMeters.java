package dev.ledger.core.internal.metrics;

import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;

/**
 * What a ledger store records about itself: {@link #NONE} when its options carry no meter
 * registry, a Micrometer recorder otherwise. No Micrometer type appears in this interface, so
 * that a store without a registry loads and runs with no Micrometer class on the class path;
 * {@link MicrometerLedgerMeters}, the only class here that names Micrometer, is loaded by
 * {@link #of} only when a registry is given. Implementations are thread-safe and never throw.
 */
public interface LedgerMeters {
  /** Records nothing; {@link #recording()} is false so callers skip reading the clock. */
  LedgerMeters NONE = new NoMeters();

  /** How a commit ended, the {@code outcome} tag of {@code ledger.commit}. */
  enum Outcome {
    /** A new revision was made durable. */
    COMMITTED,
    /** The command was recorded before: nothing was written. */
    REPLAYED,
    /** A revision or command conflict refused the commit. */
    CONFLICT,
    /** Any other failure. */
    ERROR
  }

  /**
   * The store's gauges: read when the registry is scraped, on the scraping thread.
   *
   * @param openWriters ledgers holding open files for writing, or null for a store without
   *     such a bound (the gauge is then not registered)
   * @param followers followers open on the store
   * @param followLagSeconds the largest lag of an open follower, in seconds
   */
  record Gauges(IntSupplier openWriters, IntSupplier followers, DoubleSupplier followLagSeconds) {
  }

  /**
   * The recorder for a store.
   *
   * @param registry the options' meter registry (a Micrometer {@code MeterRegistry}), or null
   * @param store the store's name, the {@code store} tag of its gauges
   * @param gauges what the store's gauges read
   * @return {@link #NONE} if {@code registry} is null, else a recorder that registers the
   *     store's gauges now and removes them on {@link #close}
   */
  static LedgerMeters of(Object registry, String store, Gauges gauges) {
    return registry == null ? NONE : new MicrometerLedgerMeters(registry, store, gauges);
  }

  /**
   * Whether anything is recorded; when false a caller may skip timing.
   *
   * @return false for {@link #NONE}
   */
  boolean recording();

  /**
   * One call of {@code Ledger.commit} ended.
   *
   * @param startNanos {@link System#nanoTime()} when it began
   * @param outcome how it ended
   * @param failure what it threw, or null
   */
  void commit(long startNanos, Outcome outcome, Throwable failure);

  /**
   * One read of the latest state ended.
   *
   * @param startNanos {@link System#nanoTime()} when it began
   * @param found whether the ledger existed
   * @param failure what it threw, or null
   */
  void load(long startNanos, boolean found, Throwable failure);

  /**
   * One page of events was read, or failed.
   *
   * @param startNanos {@link System#nanoTime()} when it began
   * @param failure what it threw, or null
   */
  void events(long startNanos, Throwable failure);

  /** {@code Ledger.update} starts over after a revision conflict. */
  void updateRetry();

  /**
   * Journal records were written.
   *
   * @param bytes their size
   */
  void journalWritten(long bytes);

  /** A checkpoint was written. */
  void checkpointWritten();

  /** A journal was forced to make commits durable (one {@code fdatasync}, for a group). */
  void journalForced();

  /** The store closed: its gauges leave the registry. */
  void close();

  /** The recorder without a registry. */
  final class NoMeters implements LedgerMeters {
    private NoMeters() {}

    @Override
    public boolean recording() {
      return false;
    }

    @Override
    public void commit(long startNanos, Outcome outcome, Throwable failure) {}

    @Override
    public void load(long startNanos, boolean found, Throwable failure) {}

    @Override
    public void events(long startNanos, Throwable failure) {}

    @Override
    public void updateRetry() {}

    @Override
    public void journalWritten(long bytes) {}

    @Override
    public void checkpointWritten() {}

    @Override
    public void journalForced() {}

    @Override
    public void close() {}
  }
}
