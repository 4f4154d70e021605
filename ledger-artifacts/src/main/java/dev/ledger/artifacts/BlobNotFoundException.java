package dev.ledger.artifacts;

import java.nio.file.Path;

/**
 * A blob does not exist: opened or sized by id, or referenced by a submission being frozen
 * (then nothing was written).
 */
public class BlobNotFoundException extends ArtifactNotFoundException {
  private static final long serialVersionUID = 1L;
  /** The missing blob. */
  private final ContentId id;
  private final transient Path path;

  /**
   * Creates the exception for a blob that does not exist.
   *
   * @param id the missing blob
   * @param path where it was expected, or null for an in-memory store
   */
  public BlobNotFoundException(ContentId id, Path path) {
    super("Blob " + id + " not found" + (path == null ? "" : " at " + path));
    this.id = id;
    this.path = path;
  }

  /**
   * The missing blob.
   *
   * @return its content id
   */
  public ContentId id() {
    return id;
  }

  /**
   * Where the blob was expected.
   *
   * @return the path, or null for an in-memory store
   */
  public Path path() {
    return path;
  }
}
