package dev.ledger.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The CPU time of a local PostgreSQL server: its postmaster and every process it started
 * (backends, WAL writer, checkpointer, background writer, autovacuum), from the scheduler's
 * per-process run time in {@code /proc/PID/schedstat}, in nanoseconds. Processes that exited
 * between two readings drop out of the sum, so a difference covers the long-lived ones: a
 * pool's backends and the server's background processes. Linux only; elsewhere
 * {@link #of} returns null. Also reads the server's WAL position ({@link #walBytes}).
 */
final class ServerCpu {
  private static final Path PROC = Path.of("/proc");

  private final long postmaster;
  /** A connection of its own, for the WAL position. */
  private final Connection connection;

  private ServerCpu(long postmaster, Connection connection) {
    this.postmaster = postmaster;
    this.connection = connection;
  }

  /**
   * The server {@code c} is connected to, found from its backend's parent process; null if
   * the process table cannot be read (not Linux, or the server is not on this machine). It
   * keeps {@code c} to read the WAL position ({@link #walBytes}); the caller closes it.
   */
  static ServerCpu of(Connection c) throws SQLException {
    long backend;
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT pg_backend_pid()")) {
      rs.next();
      backend = rs.getLong(1);
    }
    try {
      String[] stat = stat(PROC.resolve(Long.toString(backend)));
      return stat == null ? null : new ServerCpu(Long.parseLong(stat[1]), c);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * The server's WAL insert position, in bytes from the start of the WAL: the difference of
   * two readings is the WAL written between them (by every session; a reading itself writes
   * none).
   */
  long walBytes() throws SQLException {
    try (Statement s = connection.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Run time of the postmaster and its children so far, nanoseconds. */
  long nanos() {
    long total = runNanos(PROC.resolve(Long.toString(postmaster)));
    try (DirectoryStream<Path> all = Files.newDirectoryStream(PROC, "[0-9]*")) {
      for (Path p : all) {
        String[] stat = stat(p);
        if (stat != null && Long.parseLong(stat[1]) == postmaster) {
          total += runNanos(p);
        }
      }
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    return total;
  }

  /**
   * The fields of {@code /proc/PID/stat} after the command name (state, parent pid, ...), or
   * null if the process is gone.
   */
  private static String[] stat(Path process) {
    String line;
    try {
      line = Files.readString(process.resolve("stat"), StandardCharsets.US_ASCII);
    } catch (IOException e) {
      return null; // gone between the listing and the read, or not readable
    }
    int end = line.lastIndexOf(')');
    return end < 0 ? null : line.substring(end + 2).split(" ");
  }

  /** The first field of {@code /proc/PID/schedstat}: time on a CPU, ns; 0 if gone. */
  private static long runNanos(Path process) {
    try {
      String line = Files.readString(process.resolve("schedstat"), StandardCharsets.US_ASCII);
      return Long.parseLong(line.substring(0, line.indexOf(' ')));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
