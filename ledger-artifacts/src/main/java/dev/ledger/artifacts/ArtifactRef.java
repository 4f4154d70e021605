package dev.ledger.artifacts;

import com.google.common.base.Preconditions;

/**
 * A reference from a snapshot to one artifact an attempt produced: a blob of this store, an
 * external location, or both.
 *
 * @param name what the artifact is to the attempt ({@code "report.html"}); not blank
 * @param mediaType its media type, or null if unknown
 * @param blob the blob holding its bytes, or null if it lives elsewhere
 * @param uri where it lives outside the store, or null
 */
public record ArtifactRef(String name, String mediaType, ContentId blob, String uri) {
  /**
   * Validates the reference.
   *
   * @param name what the artifact is to the attempt; not blank
   * @param mediaType its media type, or null if unknown
   * @param blob the blob holding its bytes, or null if it lives elsewhere
   * @param uri where it lives outside the store, or null
   * @throws IllegalArgumentException if {@code name} is blank or neither {@code blob} nor
   *     {@code uri} is given
   */
  public ArtifactRef {
    Preconditions.checkArgument(name != null && !name.isBlank(),
        "artifact name must not be blank: %s", name);
    Preconditions.checkArgument(blob != null || uri != null,
        "artifact %s needs a blob or a uri", name);
  }

  /**
   * A reference to a blob of this store.
   *
   * @param name what the artifact is to the attempt; not blank
   * @param mediaType its media type, or null if unknown
   * @param blob the blob holding its bytes
   * @return the reference
   * @throws NullPointerException if {@code blob} is null
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static ArtifactRef ofBlob(String name, String mediaType, ContentId blob) {
    return new ArtifactRef(name, mediaType, Preconditions.checkNotNull(blob, "blob"), null);
  }

  /**
   * A reference to an artifact kept outside the store.
   *
   * @param name what the artifact is to the attempt; not blank
   * @param mediaType its media type, or null if unknown
   * @param uri where it lives
   * @return the reference
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if {@code name} is blank
   */
  public static ArtifactRef ofUri(String name, String mediaType, String uri) {
    return new ArtifactRef(name, mediaType, null, Preconditions.checkNotNull(uri, "uri"));
  }
}
