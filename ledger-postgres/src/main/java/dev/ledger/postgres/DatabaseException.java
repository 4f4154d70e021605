package dev.ledger.postgres;

import dev.ledger.core.LedgerException;
import dev.ledger.core.spi.RetryableFailure;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * A database operation failed: the server refused a statement, the connection broke, or the
 * pool gave no connection in time. Carries the SQLSTATE and says whether the same call may
 * simply be tried again.
 *
 * <p><b>What a caller does with it.</b> If {@link #retryable()} is false, the failure is not
 * the environment's passing state (a permission, a missing table, a full disk the server
 * reports): retrying will not help. If it is true (the server was killed, restarted, shut
 * down or unreachable, the connection broke, the pool timed out, a serialization failure or
 * deadlock), the same call may succeed later: back off and try again. A read is simply
 * repeated. A commit is repeated <em>with the same command id, expected revision and
 * state</em>: if the first attempt landed, the retry returns its recorded result
 * ({@link dev.ledger.core.CommitResult#replayed()} true); if it did not, the retry commits
 * it; either way it lands exactly once. A commit without a command id cannot tell the two
 * apart: after a failure whose {@link #outcomeUnknown()} is true it may have landed, and a
 * retry at the same expected revision then fails with a revision conflict.
 *
 * <p>{@link #outcomeUnknown()} is true only for a commit whose connection broke after its
 * {@code COMMIT} was sent and before the server's answer arrived: it may or may not have
 * landed. A failure before that point left nothing behind.
 */
public class DatabaseException extends LedgerException implements RetryableFailure {
  private static final long serialVersionUID = 1L;

  private final String sqlState;
  private final boolean outcomeUnknown;
  private final boolean retryable;

  /**
   * Wraps a driver failure.
   *
   * @param operation what the store was doing, naming the ledger ("commit to ledger 'run-1'")
   * @param cause the driver's exception
   * @param outcomeUnknown true if the failure came while a commit's outcome was being decided
   */
  public DatabaseException(String operation, SQLException cause, boolean outcomeUnknown) {
    super(operation + " failed" + (outcomeUnknown ? " (outcome unknown)" : "") + ": SQLSTATE "
        + cause.getSQLState() + ": " + cause.getMessage(), cause);
    this.sqlState = cause.getSQLState();
    this.outcomeUnknown = outcomeUnknown;
    this.retryable = outcomeUnknown || isTransient(sqlState)
        || cause instanceof SQLTransientException || cause instanceof SQLRecoverableException;
  }

  /**
   * The SQLSTATE the driver reported.
   *
   * @return the five-character code, or null if the driver gave none
   */
  public String sqlState() {
    return sqlState;
  }

  /**
   * Whether the failure is transient: a broken or refused connection (class 08), a server
   * shutting down or restarting (57P01 to 57P03), a serialization failure or deadlock (40001,
   * 40P01), no pooled connection in time (the driver's or the pool's transient and
   * recoverable exceptions), or a commit whose outcome is unknown. The same call may succeed
   * later; a commit is retried under the same command id (see above).
   *
   * @return true if a retry may succeed
   */
  @Override
  public boolean retryable() {
    return retryable;
  }

  /**
   * Whether a commit may have landed although it failed (the connection broke at its end).
   *
   * @return true if the outcome is unknown; retry with the same command id to find out
   */
  @Override
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }

  static boolean isTransient(String state) {
    if (state == null) {
      return false;
    }
    return state.startsWith("08") || state.equals("57P01") || state.equals("57P02")
        || state.equals("57P03") || state.equals("40001") || state.equals("40P01");
  }
}
