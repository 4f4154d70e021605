package dev.ledger.core;

/**
 * A commit carried a command id that the ledger already recorded with different drafts: other
 * event types, payloads or operation ids, or another order (see {@link Ledger}, Commands; the
 * new state is not compared). Nothing was written. This is never a silent success: the caller
 * reused an id for a different command.
 */
public class CommandConflictException extends LedgerException {
  private static final long serialVersionUID = 1L;
  /** Serialized with the exception; what {@link #rootId()} returns. */
  private final String rootId;
  /** Serialized with the exception; what {@link #publicCommandId()} returns. */
  private final String publicCommandId;
  /** Serialized with the exception; what {@link #recordedRevision()} returns. */
  private final long recordedRevision;
  /** Serialized with the exception; what {@link #recordedDigest()} returns. */
  private final String recordedDigest;
  /** Serialized with the exception; what {@link #attemptedDigest()} returns. */
  private final String attemptedDigest;

  /**
   * Creates the conflict; digests are SHA-256 hex of the canonical JSON of the drafts (type,
   * payload, operation id, in order).
   *
   * @param rootId the root id of the ledger that refused the commit
   * @param publicCommandId the public command id ({@code cmd_} + SHA-256 hex of the caller's id)
   * @param recordedRevision the revision the command was first committed with
   * @param recordedDigest the digest of the drafts recorded with that revision
   * @param attemptedDigest the digest of the drafts of the refused commit
   */
  public CommandConflictException(String rootId, String publicCommandId, long recordedRevision,
      String recordedDigest, String attemptedDigest) {
    super("Ledger '" + rootId + "' command " + publicCommandId + " was recorded at revision "
        + recordedRevision + " with content " + recordedDigest
        + " but was retried with different content " + attemptedDigest);
    this.rootId = rootId;
    this.publicCommandId = publicCommandId;
    this.recordedRevision = recordedRevision;
    this.recordedDigest = recordedDigest;
    this.attemptedDigest = attemptedDigest;
  }

  /**
   * The ledger that refused the commit.
   *
   * @return its root id
   */
  public String rootId() {
    return rootId;
  }

  /**
   * The command id the two commits share, in the form stamped on events.
   *
   * @return {@code cmd_} + SHA-256 hex of the caller's command id; never the raw id
   */
  public String publicCommandId() {
    return publicCommandId;
  }

  /**
   * Where the command was first recorded; {@link Ledger#command} returns that result.
   *
   * @return the revision the command was first committed with, at least 1
   */
  public long recordedRevision() {
    return recordedRevision;
  }

  /**
   * What the ledger holds for this command.
   *
   * @return SHA-256 hex of the canonical JSON of the drafts recorded first
   */
  public String recordedDigest() {
    return recordedDigest;
  }

  /**
   * What the refused commit carried; differs from {@link #recordedDigest()}.
   *
   * @return SHA-256 hex of the canonical JSON of the refused commit's drafts
   */
  public String attemptedDigest() {
    return attemptedDigest;
  }
}
