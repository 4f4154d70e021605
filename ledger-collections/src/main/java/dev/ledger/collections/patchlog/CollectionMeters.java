package dev.ledger.collections.patchlog;

import java.util.function.Supplier;

/**
 * What a collection store records about itself: {@link #NONE} when its options carry no meter
 * registry, a Micrometer recorder otherwise. No Micrometer type appears here, so that a store
 * without a registry runs with no Micrometer class on the class path;
 * {@link MicrometerCollectionMeters} is loaded by {@link #of} only when a registry is given.
 * Implementations are thread-safe and never throw.
 */
interface CollectionMeters {
  /** Records nothing. */
  CollectionMeters NONE = new CollectionMeters() {
    @Override
    public boolean recording() {
      return false;
    }

    @Override
    public void operation(String collection, String operation, long startNanos, boolean ok) {}

    @Override
    public void transaction(String operation, String status, long startNanos) {}

    @Override
    public void retry() {}
  };

  /** The {@code status} of an operation that returned. */
  String OK = "ok";
  /** The {@code status} of an operation that threw. */
  String ERROR = "error";

  /**
   * The recorder for a store.
   *
   * @param registry the options' meter registry (a Micrometer {@code MeterRegistry}), or null
   * @return {@link #NONE} if {@code registry} is null
   */
  static CollectionMeters of(Object registry) {
    return registry == null ? NONE : new MicrometerCollectionMeters(registry);
  }

  /** Whether anything is recorded; when false callers skip timing. */
  boolean recording();

  /**
   * One operation on a collection, queue or key-value ended.
   *
   * @param collection its name
   * @param operation the operation ({@code insert}, {@code dequeue}, ...)
   * @param startNanos {@link System#nanoTime()} when it began
   * @param ok false if it threw
   */
  void operation(String collection, String operation, long startNanos, boolean ok);

  /**
   * One transaction or read of a partition ended.
   *
   * @param operation {@code execute} or {@code read}
   * @param status how it ended
   * @param startNanos {@link System#nanoTime()} when it began
   */
  void transaction(String operation, String status, long startNanos);

  /** A transaction runs its callback again after a revision conflict. */
  void retry();

  /**
   * Runs {@code body} as one operation, timed when recording.
   *
   * @param collection the collection, queue or key-value
   * @param operation the operation
   * @param body the operation's work
   * @param <R> what it returns
   * @return what {@code body} returned
   */
  default <R> R timed(String collection, String operation, Supplier<R> body) {
    if (!recording()) {
      return body.get();
    }
    long start = System.nanoTime();
    R result;
    try {
      result = body.get();
    } catch (RuntimeException | Error e) {
      operation(collection, operation, start, false);
      throw e;
    }
    operation(collection, operation, start, true);
    return result;
  }

  /**
   * Runs {@code body} as one operation, timed when recording.
   *
   * @param collection the collection, queue or key-value
   * @param operation the operation
   * @param body the operation's work
   */
  default void timed(String collection, String operation, Runnable body) {
    timed(collection, operation, () -> {
      body.run();
      return null;
    });
  }
}
