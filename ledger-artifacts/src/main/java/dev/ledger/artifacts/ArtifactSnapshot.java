package dev.ledger.artifacts;

import com.google.common.base.Preconditions;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.internal.io.Identifiers;
import dev.ledger.core.internal.json.LedgerJson;
import java.time.Instant;
import java.util.List;

/**
 * The frozen, immutable record of one attempt's result. An attempt has at most one snapshot
 * per root, for the life of the store: the first freeze wins.
 *
 * @param rootId the orchestration root it belongs to
 * @param snapshotId {@code "attempt-" + sha256hex(attemptId)}, see {@link #idFor}
 * @param attemptId the attempt it freezes
 * @param content the normalized content
 * @param sha256 lower-case hex SHA-256 of the content's canonical JSON
 * @param frozenAt when the winning freeze happened, from the store's clock
 */
public record ArtifactSnapshot(String rootId, String snapshotId, String attemptId,
    SnapshotContent content, String sha256, Instant frozenAt) {
  /** The prefix of every snapshot id. */
  public static final String ID_PREFIX = "attempt-";

  /**
   * Validates that the fields agree: valid ids, the snapshot id derived from the attempt id,
   * the digest computed from the content.
   *
   * @param rootId the orchestration root
   * @param snapshotId the id derived from the attempt id
   * @param attemptId the attempt
   * @param content the normalized content
   * @param sha256 the digest of the content's canonical JSON
   * @param frozenAt when the winning freeze happened
   * @throws IllegalArgumentException if they do not agree
   * @throws NullPointerException if {@code content} or {@code frozenAt} is null
   * @throws InvalidIdentifierException if {@code rootId} or {@code attemptId} is not a valid
   *     identifier
   */
  public ArtifactSnapshot {
    Identifiers.check("root id", rootId);
    Identifiers.check("attempt id", attemptId);
    Preconditions.checkNotNull(content, "content");
    Preconditions.checkNotNull(frozenAt, "frozenAt");
    Preconditions.checkArgument(idFor(attemptId).equals(snapshotId),
        "snapshot id %s is not the id of attempt %s", snapshotId, attemptId);
    Preconditions.checkArgument(content.sha256().equals(sha256),
        "sha256 %s is not the digest of the content (%s)", sha256, content.sha256());
  }

  /**
   * Creates the snapshot of an attempt, deriving its id and digest.
   *
   * @param rootId the orchestration root
   * @param attemptId the attempt
   * @param content the normalized content
   * @param frozenAt when it is frozen
   * @return the snapshot
   * @throws NullPointerException if {@code content} or {@code frozenAt} is null
   * @throws InvalidIdentifierException if {@code rootId} or {@code attemptId} is not a valid
   *     identifier
   */
  public static ArtifactSnapshot of(String rootId, String attemptId, SnapshotContent content,
      Instant frozenAt) {
    return new ArtifactSnapshot(rootId, idFor(attemptId), attemptId, content, content.sha256(),
        frozenAt);
  }

  /**
   * The snapshot id of an attempt: {@code "attempt-"} followed by the lower-case hex SHA-256
   * of the attempt id's UTF-8 bytes. It names the snapshot's file, so any valid attempt id
   * gives a safe, fixed-length file name.
   *
   * @param attemptId the attempt
   * @return {@code attempt-<64 hex>}
   * @throws InvalidIdentifierException if {@code attemptId} is not a valid identifier
   */
  public static String idFor(String attemptId) {
    Identifiers.check("attempt id", attemptId);
    return ID_PREFIX + LedgerJson.sha256Hex(attemptId);
  }

  /**
   * Returns {@code snapshotId} if it has the form of a snapshot id.
   *
   * @param snapshotId the value to check
   * @return {@code snapshotId}
   * @throws NullPointerException if {@code snapshotId} is null
   * @throws InvalidIdentifierException otherwise (such a value is never used as a path)
   */
  public static String checkId(String snapshotId) {
    Preconditions.checkNotNull(snapshotId, "snapshot id must not be null");
    if (!snapshotId.startsWith(ID_PREFIX)
        || !ContentId.isHex64(snapshotId.substring(ID_PREFIX.length()))) {
      throw new InvalidIdentifierException("snapshot id", snapshotId,
          "must be 'attempt-' followed by 64 lower-case hex digits");
    }
    return snapshotId;
  }

  /**
   * The summary of the content.
   *
   * @return the trimmed summary
   */
  public String summary() {
    return content.summary();
  }

  /**
   * The artifact references of the content.
   *
   * @return the references, in order
   */
  public List<ArtifactRef> artifactRefs() {
    return content.artifactRefs();
  }

  /**
   * The evidence references of the content.
   *
   * @return the references, in order
   */
  public List<EvidenceRef> evidenceRefs() {
    return content.evidenceRefs();
  }
}
