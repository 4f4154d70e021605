package dev.ledger.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A PostgreSQL server of one test's own, on a data directory the test keeps, that the test
 * kills with SIGKILL and restarts on the same directory and port (crash recovery then replays
 * the write-ahead log). Unlike {@link TestDatabase}, a commit is acknowledged only once its
 * WAL was written ({@code synchronous_commit} on): a process kill loses nothing acknowledged.
 * ({@code fsync} stays off: the machine does not lose power in these tests, and what was
 * written to the kernel survives the death of the process.)
 */
final class CrashableServer implements AutoCloseable {
  private final Path data;
  private final int port;
  private EmbeddedPostgres server;

  private CrashableServer(Path data, int port) {
    this.data = data;
    this.port = port;
  }

  /** Initializes {@code data} and starts a server on it, on a free port. */
  static CrashableServer start(Path data) throws IOException {
    int port;
    try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
      port = free.getLocalPort();
    }
    CrashableServer s = new CrashableServer(data, port);
    s.server = s.builder().start();
    return s;
  }

  private EmbeddedPostgres.Builder builder() {
    return EmbeddedPostgres.builder()
        .setDataDirectory(data)
        .setCleanDataDirectory(false)
        .setPort(port)
        // Crash recovery on a loaded machine can outlast the default wait for the start.
        .setPGStartupWait(Duration.ofSeconds(90))
        .setServerConfig("fsync", "off")
        .setServerConfig("synchronous_commit", "on")
        .setServerConfig("full_page_writes", "off");
  }

  String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres";
  }

  /**
   * Kills the postmaster with SIGKILL (its pid is the first line of {@code postmaster.pid})
   * and waits until it and every process it had started are gone, so that the restart finds
   * no survivor attached to the old shared memory.
   *
   * @return the pid killed
   */
  long kill() throws IOException, InterruptedException {
    List<String> lines = Files.readAllLines(data.resolve("postmaster.pid"),
        StandardCharsets.US_ASCII);
    long pid = Long.parseLong(lines.get(0).trim());
    ProcessHandle postmaster = ProcessHandle.of(pid)
        .orElseThrow(() -> new IllegalStateException("no postmaster process " + pid));
    List<ProcessHandle> children = postmaster.descendants().toList();
    if (!postmaster.destroyForcibly()) {
      throw new IllegalStateException("SIGKILL to postmaster " + pid + " was not sent");
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (postmaster.isAlive() || children.stream().anyMatch(ProcessHandle::isAlive)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the server processes of postmaster " + pid
            + " outlived it by 60 s");
      }
      Thread.sleep(20); // polling the process table: there is no event to wait on
    }
    return pid;
  }

  /** Starts the server again on the same data directory and port, after {@link #kill()}. */
  void restart() throws IOException {
    closeQuietly();
    server = builder().start();
  }

  private void closeQuietly() {
    try {
      server.close(); // its pg_ctl stop fails on a dead postmaster; this releases its lock
    } catch (IOException | RuntimeException e) {
      // the postmaster is gone already
    }
  }

  @Override
  public void close() {
    closeQuietly();
  }
}
