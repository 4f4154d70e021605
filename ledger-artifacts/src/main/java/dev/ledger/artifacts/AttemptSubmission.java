package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import java.util.ArrayList;
import java.util.List;

/**
 * What an attempt hands in to be frozen: a summary, references to its artifacts and
 * evidence, and optionally files to store as blobs first.
 *
 * @param summary free text; trimmed when normalized
 * @param artifactRefs artifact references, in order
 * @param evidenceRefs evidence references, in order
 * @param files files stored as blobs by {@code freeze}; each becomes an artifact reference
 *     appended after {@code artifactRefs}, in order
 */
public record AttemptSubmission(String summary, List<ArtifactRef> artifactRefs,
    List<EvidenceRef> evidenceRefs, List<FileArtifact> files) {
  /**
   * Validates and copies the lists.
   *
   * @param summary free text; trimmed when normalized
   * @param artifactRefs artifact references, in order
   * @param evidenceRefs evidence references, in order
   * @param files files to store as blobs, in order
   * @throws NullPointerException if an argument or a list element is null
   */
  public AttemptSubmission {
    Preconditions.checkNotNull(summary, "summary");
    artifactRefs = List.copyOf(Preconditions.checkNotNull(artifactRefs, "artifactRefs"));
    evidenceRefs = List.copyOf(Preconditions.checkNotNull(evidenceRefs, "evidenceRefs"));
    files = List.copyOf(Preconditions.checkNotNull(files, "files"));
  }

  /**
   * A submission with references only.
   *
   * @param summary free text; trimmed when normalized
   * @param artifactRefs artifact references, in order
   * @param evidenceRefs evidence references, in order
   * @return the submission, with no files
   * @throws NullPointerException if an argument or a list element is null
   */
  public static AttemptSubmission of(String summary, List<ArtifactRef> artifactRefs,
      List<EvidenceRef> evidenceRefs) {
    return new AttemptSubmission(summary, artifactRefs, evidenceRefs, List.of());
  }

  /**
   * This submission with one more file to store.
   *
   * @param file the file, stored after the files already in this submission
   * @return a new submission; this one is unchanged
   * @throws NullPointerException if {@code file} is null
   */
  public AttemptSubmission withFile(FileArtifact file) {
    List<FileArtifact> next = new ArrayList<>(files);
    next.add(Preconditions.checkNotNull(file, "file"));
    return new AttemptSubmission(summary, artifactRefs, evidenceRefs, next);
  }
}
