package dev.ledger.bench;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.nio.file.Path;

/**
 * Runs only the single-ledger part of scenario 11 (the store against plain JDBC, one client
 * on one ledger, with the per-commit costs) on a durable server of its own and prints its
 * table: a loop short enough to run under a profiler such as JFR. Not a test; the first
 * argument is the number of measured rounds (5 by default).
 */
final class PostgresCommitProbe {
  private PostgresCommitProbe() {}

  /**
   * Starts the server, runs the measurement and prints the table to standard output.
   *
   * @param args optionally the number of measured rounds
   * @throws Exception if the server does not start or a commit fails
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
    BenchConfig config = BenchConfig.full(Path.of("target", "probe")).withRounds(rounds);
    Report report = new Report();
    try (EmbeddedPostgres server = PostgresScenario.durableServer()) {
      String url = "jdbc:postgresql://localhost:" + server.getPort() + "/postgres";
      report.note("Server: " + PostgresScenario.settings(url));
      PostgresScenario.singleLedger(config, report, url);
    }
    System.out.println(report.markdown("## PostgreSQL single-ledger probe, " + rounds
        + " rounds"));
  }
}
