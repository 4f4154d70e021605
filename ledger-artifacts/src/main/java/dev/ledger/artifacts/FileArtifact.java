package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.nio.file.Path;

/**
 * A file to be stored as a blob when an attempt is frozen; it becomes an {@link ArtifactRef}
 * to that blob, after the submission's explicit references.
 *
 * @param name the artifact's name; not blank
 * @param mediaType its media type, or null
 * @param file the file to read; it is read once, streaming, and not kept
 */
public record FileArtifact(String name, String mediaType, Path file) {
  /**
   * Validates the fields.
   *
   * @param name the artifact's name; not blank
   * @param mediaType its media type, or null
   * @param file the file to read
   * @throws IllegalArgumentException if {@code name} is blank
   * @throws NullPointerException if {@code file} is null
   */
  public FileArtifact {
    Preconditions.checkArgument(name != null && !name.isBlank(),
        "artifact name must not be blank: %s", name);
    Preconditions.checkNotNull(file, "file");
  }
}
