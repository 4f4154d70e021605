package dev.ledger.core;

/**
 * A commit carried a command id that the ledger already recorded with different drafts: other
 * event types, payloads or operation ids, or another order (see {@link Ledger}, Commands; the
 * new state is not compared). Nothing was written. This is never a silent success: the caller
 * reused an id for a different command.
 */
public class CommandConflictException extends LedgerException {
  private static final long serialVersionUID = 1L;
  private final String rootId;
  private final String publicCommandId;
  private final long recordedRevision;
  private final String recordedDigest;
  private final String attemptedDigest;

  /**
   * Creates the conflict; digests are SHA-256 hex of the canonical JSON of the drafts (type,
   * payload, operation id, in order).
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

  /** The ledger's root id. */
  public String rootId() {
    return rootId;
  }

  /** The public (digested) command id, as stamped on events. */
  public String publicCommandId() {
    return publicCommandId;
  }

  /** The revision the command was first committed with. */
  public long recordedRevision() {
    return recordedRevision;
  }

  /** Digest of the content recorded first. */
  public String recordedDigest() {
    return recordedDigest;
  }

  /** Digest of the content of the refused retry. */
  public String attemptedDigest() {
    return attemptedDigest;
  }
}
