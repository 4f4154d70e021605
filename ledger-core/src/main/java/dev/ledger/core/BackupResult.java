package dev.ledger.core;

import com.google.common.base.Preconditions;
import java.nio.file.Path;
import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What an online backup of a file store copied: each ledger at one revision.
 *
 * @param target the backup's store directory
 * @param revisions the revision each ledger was copied at, by root id, in root id order
 */
public record BackupResult(Path target, SortedMap<String, Long> revisions) {
  /**
   * Checks and copies the components.
   *
   * @param target the backup's store directory
   * @param revisions the revision of each ledger copied
   * @throws NullPointerException if an argument, a root id or a revision is null
   * @throws IllegalArgumentException if a revision is not positive
   */
  public BackupResult {
    Preconditions.checkNotNull(target, "target");
    TreeMap<String, Long> copy = new TreeMap<>();
    for (var e : Preconditions.checkNotNull(revisions, "revisions").entrySet()) {
      Preconditions.checkNotNull(e.getKey(), "root id");
      Preconditions.checkNotNull(e.getValue(), "revision");
      Preconditions.checkArgument(e.getValue() > 0, "revision of '%s' must be positive: %s",
          e.getKey(), e.getValue());
      copy.put(e.getKey(), e.getValue());
    }
    revisions = Collections.unmodifiableSortedMap(copy);
  }

  /**
   * The number of ledgers copied.
   *
   * @return the count
   */
  public int ledgers() {
    return revisions.size();
  }
}
