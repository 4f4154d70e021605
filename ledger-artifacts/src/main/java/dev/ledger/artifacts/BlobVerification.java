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
  /** Copies the list. */
  public BlobVerification {
    damaged = List.copyOf(Preconditions.checkNotNull(damaged, "damaged"));
  }

  /** Whether no damage was found. */
  public boolean sound() {
    return damaged.isEmpty();
  }
}
