package dev.ledger.bench;

import java.util.List;
import java.util.Set;

/**
 * The runs of the registry scenario, the same on both sides: run {@code i} has external id
 * {@code run-0000042}, belongs to a lineage of 1 to 4 attempts (consecutive runs), and ends in
 * a status fixed by {@code i % 20}: 1 in 20 {@code running}, 1 in 20
 * {@code cancel_requested} (so the queried status set matches 10% of the runs), 2 in 20
 * {@code failed}, 1 in 20 {@code canceled}, the rest {@code completed}, each reached through
 * the lifecycle ({@link #path}).
 */
final class RegistryWorkload {
  /** The status set that {@code listRuns} filters on: the active runs past starting. */
  static final Set<String> QUERIED = Set.of("running", "cancel_requested");
  /** Page size of {@code listRuns}. */
  static final int PAGE = 50;
  /** Bounds of {@code listRecentLineages}. */
  static final int LINEAGES = 50;
  static final int ATTEMPTS = 20;

  static final String WORKSPACE = "bench-workspace";

  private RegistryWorkload() {}

  /** Where run {@code i} sits: its lineage's first run and its attempt number. */
  record Placement(long firstRun, int attempt) {}

  static String externalId(long i) {
    return String.format("run-%07d", i);
  }

  static String binding(long i) {
    return "binding-" + (i % 3);
  }

  static String pipeline(long i) {
    return "pipeline-" + (i % 7);
  }

  /**
   * Lineages of 1, 2, 3, 4, 1, 2, ... attempts, laid end to end: placements of runs 0 to
   * {@code count - 1}.
   */
  static Placement[] placements(int count) {
    Placement[] out = new Placement[count];
    long lineage = 0;
    long first = 0;
    int attempt = 1;
    for (int i = 0; i < count; i++) {
      int size = 1 + (int) (lineage % 4);
      out[i] = new Placement(first, attempt);
      if (attempt == size) {
        lineage++;
        first = i + 1;
        attempt = 1;
      } else {
        attempt++;
      }
    }
    return out;
  }

  /** The statuses run {@code i} goes through after {@code starting}, in order. */
  static List<String> path(long i) {
    int k = (int) (i % 20);
    return switch (k) {
      case 0 -> List.of("running");
      case 1 -> List.of("running", "cancel_requested");
      case 2, 3 -> List.of("running", "failed");
      case 4 -> List.of("cancel_requested", "canceled");
      default -> List.of("running", "completed");
    };
  }

  /** How many of runs {@code 0..count-1} are in {@link #QUERIED}. */
  static int queriedCount(int count) {
    int n = 0;
    for (int i = 0; i < count; i++) {
      List<String> p = path(i);
      if (QUERIED.contains(p.get(p.size() - 1))) {
        n++;
      }
    }
    return n;
  }

  /** A plan checksum, 64 hex characters. */
  static String checksum(long i) {
    return String.format("%064x", i * 0x9E3779B97F4A7C15L & Long.MAX_VALUE);
  }

  /** The launch command of run {@code i}. */
  static List<String> argv(long i) {
    return List.of("nextflow", "run", pipeline(i), "-profile", "local", "-resume");
  }

  /** The request of run {@code i}: about 250 bytes of JSON. */
  static java.util.Map<String, Object> request(long i) {
    return java.util.Map.of("workspace_id", WORKSPACE, "binding", binding(i),
        "pipeline", pipeline(i), "target", java.util.Map.of("target_id", "local"),
        "daemon_owner", java.util.Map.of("implementation", "bench", "instance_id", "bench-1"),
        "plan_request", java.util.Map.of("samples", 12, "genome", "GRCh38",
            "outdir", "results/" + externalId(i)));
  }

  /** The transitions that the timed loop makes with a fresh run: a full cancellation. */
  static final List<String> TIMED_PATH =
      List.of("running", "cancel_requested", "canceling", "canceled");
}
