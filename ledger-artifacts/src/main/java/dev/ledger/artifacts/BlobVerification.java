package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.List;

/**
 * The result of re-hashing every blob.
 *
 * @param checked number of entries examined (sound and damaged)
 * @param bytes total bytes hashed
 * @param damaged each corrupt or misnamed entry, with its path
 */
public record BlobVerification(long checked, long bytes, List<BlobDamage> damaged) {
  /**
   * Validates and copies the list.
   *
   * @param checked number of entries examined
   * @param bytes total bytes hashed
   * @param damaged each damaged entry
   * @throws NullPointerException if {@code damaged} or one of its elements is null
   */
  public BlobVerification {
    damaged = List.copyOf(Preconditions.checkNotNull(damaged, "damaged"));
  }

  /**
   * Whether no damage was found.
   *
   * @return true if {@link #damaged()} is empty
   */
  public boolean sound() {
    return damaged.isEmpty();
  }
}
