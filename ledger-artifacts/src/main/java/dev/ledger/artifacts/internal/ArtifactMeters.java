package dev.ledger.artifacts.internal;

import dev.ledger.artifacts.ArtifactConflictException;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.BlobCollection;
import dev.ledger.artifacts.CleanupMode;
import java.util.function.Supplier;

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
   * A freeze's snapshot, and whether this freeze stored it.
   *
   * @param snapshot the attempt's snapshot
   * @param fresh true if this freeze stored it, false if it was found with the same content
   */
  record Frozen(ArtifactSnapshot snapshot, boolean fresh) {}

  /**
   * Runs one freeze of a store and records how it ended: {@link FreezeOutcome#FROZEN} or
   * {@link FreezeOutcome#SAME} from its result, {@link FreezeOutcome#CONFLICT} or
   * {@link FreezeOutcome#ERROR} from what it throws (rethrown as it is).
   *
   * @param freeze the store's freeze
   * @return the snapshot it returned
   */
  default ArtifactSnapshot recordFreeze(Supplier<Frozen> freeze) {
    if (!recording()) {
      return freeze.get().snapshot();
    }
    Frozen frozen;
    try {
      frozen = freeze.get();
    } catch (ArtifactConflictException e) {
      freeze(FreezeOutcome.CONFLICT);
      throw e;
    } catch (RuntimeException | Error e) {
      freeze(FreezeOutcome.ERROR);
      throw e;
    }
    freeze(frozen.fresh() ? FreezeOutcome.FROZEN : FreezeOutcome.SAME);
    return frozen.snapshot();
  }

  /**
   * One garbage collection ran.
   *
   * @param mode whether it removed or only reported
   * @param result what it removed (or would have)
   */
  void collected(CleanupMode mode, BlobCollection result);
}
