package dev.ledger.postgres;

import dev.ledger.core.LedgerException;
import java.sql.SQLException;

/**
 * A database operation failed: the server refused a statement, the connection broke, or the
 * pool gave no connection in time. Carries the SQLSTATE and says whether the same call may
 * simply be tried again.
 *
 * <p>A commit that fails with {@link #outcomeUnknown()} true may or may not have landed (the
 * connection broke while the server committed). Retry it with the same command id: the retry
 * replays the recorded result if it landed, and commits it if it did not.
 */
public class DatabaseException extends LedgerException {
  private static final long serialVersionUID = 1L;

  private final String sqlState;
  private final boolean outcomeUnknown;

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
   * 40P01), or no pooled connection in time. The same call may succeed later.
   *
   * @return true if a retry may succeed
   */
  public boolean retryable() {
    return isTransient(sqlState);
  }

  /**
   * Whether a commit may have landed although it failed (the connection broke at its end).
   *
   * @return true if the outcome is unknown; retry with the same command id to find out
   */
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
