package dev.ledger.core.spi;

/**
 * What a backend's exception says about trying the failed call again: implemented by the
 * exceptions of backends whose failures may pass (a database's serialization failure,
 * deadlock, restart or broken connection), so that a layer above the SPI (the collection
 * store's transaction loop) can retry them without knowing the backend.
 *
 * <p>A caller may repeat the call when {@link #retryable()} is true. When
 * {@link #outcomeUnknown()} is also true the failed commit may have landed: the caller
 * repeats it only under the same command id, which then replays it if it had landed.
 */
public interface RetryableFailure {
  /**
   * Whether the same call may succeed if made again.
   *
   * @return true if the failure may pass
   */
  boolean retryable();

  /**
   * Whether the failed commit may have landed nevertheless.
   *
   * @return true if its outcome is unknown; false if it certainly wrote nothing
   */
  boolean outcomeUnknown();
}
