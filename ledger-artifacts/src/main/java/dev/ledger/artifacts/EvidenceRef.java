package dev.ledger.artifacts;

import com.google.common.base.Preconditions;

/**
 * A reference from a snapshot to evidence backing the attempt's result (a test log, a
 * screenshot, a command transcript): a blob of this store, an external location, or both.
 *
 * @param kind what sort of evidence it is ({@code "test-log"}); not blank
 * @param description a short human description, or null
 * @param blob the blob holding it, or null if it lives elsewhere
 * @param uri where it lives outside the store, or null
 */
public record EvidenceRef(String kind, String description, ContentId blob, String uri) {
  /**
   * Validates the reference.
   *
   * @param kind what sort of evidence it is; not blank
   * @param description a short human description, or null
   * @param blob the blob holding it, or null if it lives elsewhere
   * @param uri where it lives outside the store, or null
   * @throws IllegalArgumentException if {@code kind} is blank or neither {@code blob} nor
   *     {@code uri} is given
   */
  public EvidenceRef {
    Preconditions.checkArgument(kind != null && !kind.isBlank(),
        "evidence kind must not be blank: %s", kind);
    Preconditions.checkArgument(blob != null || uri != null,
        "evidence %s needs a blob or a uri", kind);
  }

  /**
   * Evidence held in a blob of this store.
   *
   * @param kind what sort of evidence it is; not blank
   * @param description a short human description, or null
   * @param blob the blob holding it
   * @return the reference
   * @throws NullPointerException if {@code blob} is null
   * @throws IllegalArgumentException if {@code kind} is blank
   */
  public static EvidenceRef ofBlob(String kind, String description, ContentId blob) {
    return new EvidenceRef(kind, description, Preconditions.checkNotNull(blob, "blob"), null);
  }

  /**
   * Evidence kept outside the store.
   *
   * @param kind what sort of evidence it is; not blank
   * @param description a short human description, or null
   * @param uri where it lives
   * @return the reference
   * @throws NullPointerException if {@code uri} is null
   * @throws IllegalArgumentException if {@code kind} is blank
   */
  public static EvidenceRef ofUri(String kind, String description, String uri) {
    return new EvidenceRef(kind, description, null, Preconditions.checkNotNull(uri, "uri"));
  }
}
