package dev.ledger.artifacts.internal;

import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;

/**
 * What an artifact store records about itself: {@link #NONE} when its options carry no meter
 * registry, a Micrometer recorder otherwise. No Micrometer type appears here, so that a store
 * without a registry runs with no Micrometer class on the class path;
 * {@link MicrometerArtifactMeters} is loaded by {@link #of} only when a registry is given.
 * Implementations are thread-safe and never throw.
 */
public interface ArtifactMeters {
  /** Records nothing. */
  ArtifactMeters NONE = new ArtifactMeters() {
    @Override
    public boolean recording() {
      return false;
    }

    @Override
    public void put(long startNanos, long bytes, Throwable failure) {}

    @Override
    public void freeze(FreezeOutcome outcome) {}

    @Override
    public void collected(CleanupMode mode, BlobCollection result) {}
  };

  /** How a freeze ended, the {@code outcome} tag of {@code artifacts.freeze}. */
  enum FreezeOutcome {
    /** A new snapshot was stored. */
    FROZEN,
    /** The attempt was frozen before with the same content: nothing was stored. */
    SAME,
    /** The attempt was frozen before with other content. */
    CONFLICT,
    /** Any other failure. */
    ERROR
  }

  /**
   * The recorder for a store.
   *
   * @param registry the options' meter registry (a Micrometer {@code MeterRegistry}), or null
   * @return {@link #NONE} if {@code registry} is null
   */
  static ArtifactMeters of(Object registry) {
    return registry == null ? NONE : new MicrometerArtifactMeters(registry);
  }

  /**
   * Whether anything is recorded; when false a caller may skip timing and counting.
   *
   * @return false for {@link #NONE}
   */
  boolean recording();

  /**
   * One blob put ended.
   *
   * @param startNanos {@link System#nanoTime()} when it began
   * @param bytes the bytes it read
   * @param failure what it threw, or null
   */
  void put(long startNanos, long bytes, Throwable failure);

  /**
   * One freeze ended.
   *
   * @param outcome how
   */
  void freeze(FreezeOutcome outcome);

  /**
   * One garbage collection ran.
   *
   * @param mode whether it removed or only reported
   * @param result what it removed (or would have)
   */
  void collected(CleanupMode mode, BlobCollection result);
}
