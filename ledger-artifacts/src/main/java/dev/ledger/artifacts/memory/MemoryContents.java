package dev.ledger.artifacts.memory;

import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ContentId;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an {@link InMemoryArtifactStore} holds, shared with its read-only views. Its monitor
 * guards every field and every map; callers hold it for the whole of each operation.
 */
final class MemoryContents {
  /** Snapshots by root id, then by snapshot id. */
  final Map<String, TreeMap<String, ArtifactSnapshot>> roots = new HashMap<>();
  /** Blobs by id, in id order. */
  final Map<ContentId, Entry> blobs = new TreeMap<>();

  /** A blob's bytes (a private copy) and the store-clock time of its last put. */
  record Entry(byte[] bytes, Instant lastPut) {}

  /** The snapshots of {@code rootId}: the live map, or an empty one not in {@link #roots}. */
  TreeMap<String, ArtifactSnapshot> snapshots(String rootId) {
    return roots.getOrDefault(rootId, new TreeMap<>());
  }
}
