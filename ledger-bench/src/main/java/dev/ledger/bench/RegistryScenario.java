package dev.ledger.bench;

import static dev.ledger.bench.Timing.check;
import static dev.ledger.bench.Timing.loop;
import static dev.ledger.bench.Timing.micros;

import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.collections.CollectionRunRegistry;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 13: the run registry (ledger-registry on a file store) against the reference's
 * SQLite schema ({@link SqliteRunRegistry}: WAL, {@code synchronous=FULL}, runs with a
 * revision column, events, an index on status and {@code updated_at_ms}), at a small and a
 * large registry ({@link BenchConfig#registryRuns}) filled with the same runs
 * ({@link RegistryWorkload}: lineages of 1 to 4 attempts, 10% of the runs in the queried
 * status set):
 *
 * <ul>
 *   <li>{@code transitionRun} with the revision guard, durable, against SQLite's read +
 *       guarded {@code UPDATE} + event {@code INSERT} in one transaction; each run of a
 *       pre-allocated pool goes {@code running, cancel_requested, canceling, canceled};
 *   <li>{@code listRuns} by a set of two statuses, a page of 50, newest first, at both sizes;
 *   <li>{@code listRecentLineages(50, 20)} at both sizes;
 *   <li>the large registry's cold open, each side in a fresh JVM: the store, the registry and
 *       the first {@code listRuns} page against SQLite opening its file for the same query,
 *       and the heap the open registry holds per run against a run record's JSON size.
 * </ul>
 *
 * <p>Both sides return records (SQLite's rows are mapped, their JSON columns parsed). The
 * ledger side is filled through the registry's API on a store without {@code force} (the
 * same records as with it), then reopened with the default durability before anything is
 * measured; the SQLite side is filled by batched inserts of the same runs and events. The
 * transition pool is added after the queries were measured, so they see exactly the stated
 * number of runs.
 */
final class RegistryScenario {
  static final String NAME = "13. Run registry (ledger-registry vs SQLite FULL)";
  /** The pool's size: transitions per second the fastest contender is expected to reach. */
  private static final int MAX_TRANSITIONS_PER_SECOND = 5_000;
  /** Runs allocated when a pool is used up are numbered from here. */
  private static final long REFILL_BASE = 50_000_000L;
  /** Runs allocated for the checkpoint cycle's walks are numbered from here. */
  private static final long CYCLE_BASE = 60_000_000L;
  /**
   * Runs allocated beforehand for the checkpoint cycle, on each side: a cycle of the small
   * registry's partition is ~48,000 transitions of the timed path's 4 per run.
   */
  private static final int CYCLE_RUNS = 14_000;
  private static final RunOwner OWNER = RunOwner.local("bench", "bench-1");

  private RegistryScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    int small = config.registryRuns().get(0);
    int large = config.registryRuns().get(1);
    Path dir = config.dir().resolve("s13");
    Path storeDir = dir.resolve("ledger");
    Path workspace = dir.resolve("workspace");
    Files.createDirectories(workspace);
    // A registry of 100,000 runs of ~1 KiB is a ~100 MB partition: room for its checkpoints.
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
    LedgerOptions fast = options.withDurability(Durability.UNSAFE_NO_SYNC);
    int pool = (int) ((config.rounds() + 1) * config.roundMillis()
        * MAX_TRANSITIONS_PER_SECOND / 1000 / RegistryWorkload.TIMED_PATH.size()) + 100;
    long t0 = System.nanoTime();
    try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
      populate(registry(store, "small"), workspace, small);
      populate(registry(store, "large"), workspace, large);
    }
    double fillLedger = (System.nanoTime() - t0) / 1e9;
    long t1 = System.nanoTime();
    try (SqliteRunRegistry sqlSmall = new SqliteRunRegistry(dir.resolve("sqlite/small.db"));
        SqliteRunRegistry sqlLarge = new SqliteRunRegistry(dir.resolve("sqlite/large.db"))) {
      sqlSmall.populate(small);
      sqlLarge.populate(large);
      double fillSql = (System.nanoTime() - t1) / 1e9;
      report.note(String.format("Registry scenario: %,d and %,d runs filled through the"
          + " registry API without force in %.1f s (then reopened with default durability),"
          + " through batched SQLite inserts in %.1f s; %,d runs in the queried status set at"
          + " the large size; a pool of %,d runs per registry for the transitions, added after"
          + " the queries.", small, large, fillLedger, fillSql,
          RegistryWorkload.queriedCount(large), pool));
      try (FileLedgerStore store = FileLedgerStore.open(storeDir, options)) {
        queries(config, report, registry(store, "small"), registry(store, "large"), sqlSmall,
            sqlLarge, small, large);
      }
      coldOpen(config, report, storeDir, dir.resolve("sqlite/large.db"), large);
      List<String> poolSmall;
      List<String> poolLarge;
      try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
        poolSmall = allocatePool(registry(store, "small"), small + 1_000_000L, pool);
        poolLarge = allocatePool(registry(store, "large"), large + 1_000_000L, pool);
      }
      List<String> sqlPoolSmall = sqlSmall.allocate(small + 1_000_000L, pool);
      List<String> sqlPoolLarge = sqlLarge.allocate(large + 1_000_000L, pool);
      try (FileLedgerStore store = FileLedgerStore.open(storeDir, options)) {
        transitions(config, report, registry(store, "small"), registry(store, "large"),
            poolSmall, poolLarge, sqlSmall, sqlLarge, sqlPoolSmall, sqlPoolLarge, small, large);
      }
      int cycleRuns = config.roundMillis() >= 1000 ? CYCLE_RUNS : 100;
      List<String> cyclePool;
      try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
        cyclePool = allocatePool(registry(store, "small"), CYCLE_BASE, cycleRuns);
      }
      List<String> sqlCyclePool = sqlSmall.allocate(CYCLE_BASE, cycleRuns);
      MeterRegistry meters = new SimpleMeterRegistry();
      try (FileLedgerStore store = FileLedgerStore.open(storeDir,
          options.withMeterRegistry(meters))) {
        checkpointCycle(config, report, registry(store, "small"), cyclePool, sqlSmall,
            sqlCyclePool, meters, small);
      }
    }
  }

  private static RunRegistry registry(FileLedgerStore store, String partition) {
    return CollectionRunRegistry.on(store, RegistryOptions.defaults().withPartition("registry-"
        + partition));
  }

  static NewRun newRun(long i, String firstRunId, int attempt) {
    NewRun.Builder run = NewRun.builder(RegistryWorkload.WORKSPACE,
            RegistryWorkload.externalId(i))
        .binding(RegistryWorkload.binding(i))
        .pipeline(RegistryWorkload.pipeline(i))
        .workflow("main")
        .planChecksum(RegistryWorkload.checksum(i))
        .request(Workload.JSON.valueToTree(RegistryWorkload.request(i)))
        .commandArgv(RegistryWorkload.argv(i))
        .owner(OWNER);
    if (attempt > 1) {
      run.attemptOf(firstRunId, attempt);
    }
    return run.build();
  }

  static void populate(RunRegistry registry, Path workspace, int count) {
    registry.registerWorkspace(RegistryWorkload.WORKSPACE, workspace);
    RegistryWorkload.Placement[] placements = RegistryWorkload.placements(count);
    for (int i = 0; i < count; i++) {
      RunRecord run = registry.allocateRun(newRun(i,
          RegistryWorkload.externalId(placements[i].firstRun()), placements[i].attempt()));
      for (String status : RegistryWorkload.path(i)) {
        run = registry.transitionRun(run.id(), RunStatus.of(status), run.revision(),
            TransitionDetails.none());
      }
    }
  }

  private static List<String> allocatePool(RunRegistry registry, long from, int count) {
    List<String> ids = new ArrayList<>(count);
    for (long i = from; i < from + count; i++) {
      ids.add(registry.allocateRun(newRun(i, null, 1)).id());
    }
    return ids;
  }

  /**
   * Walks a pool of runs in {@code starting} through {@link RegistryWorkload#TIMED_PATH}. A
   * contender that uses up its pool allocates one more run at a time inside its timed slice
   * (counted in {@link #refills}, which the report names), rather than failing the run.
   */
  private abstract static class PoolWalk {
    private final List<String> pool;
    private final long refillBase;
    private int run;
    private int step;
    long revision = 1;
    long refills;

    PoolWalk(List<String> pool) {
      this(pool, REFILL_BASE);
    }

    PoolWalk(List<String> pool, long refillBase) {
      this.pool = new ArrayList<>(pool);
      this.refillBase = refillBase;
    }

    /** One transition: the next of the current run, or the first of the next run. */
    final void next() throws Exception {
      if (step == RegistryWorkload.TIMED_PATH.size()) {
        run++;
        step = 0;
        revision = 1;
      }
      if (run >= pool.size()) {
        pool.add(allocate(refillBase + refills++));
      }
      revision = transition(pool.get(run), RegistryWorkload.TIMED_PATH.get(step), revision);
      step++;
    }

    /** Makes the transition and returns the new revision. */
    abstract long transition(String id, String to, long revision) throws Exception;

    /** Allocates run {@code i} in {@code starting}; its id. */
    abstract String allocate(long i) throws Exception;
  }

  private static PoolWalk ledgerWalk(RunRegistry registry, List<String> pool) {
    return ledgerWalk(registry, pool, REFILL_BASE);
  }

  private static PoolWalk ledgerWalk(RunRegistry registry, List<String> pool, long base) {
    return new PoolWalk(pool, base) {
      @Override
      long transition(String id, String to, long revision) {
        return registry.transitionRun(id, RunStatus.of(to), revision, TransitionDetails.none())
            .revision();
      }

      @Override
      String allocate(long i) {
        return registry.allocateRun(newRun(i, null, 1)).id();
      }
    };
  }

  private static PoolWalk sqliteWalk(SqliteRunRegistry sqlite, List<String> pool) {
    return sqliteWalk(sqlite, pool, REFILL_BASE);
  }

  private static PoolWalk sqliteWalk(SqliteRunRegistry sqlite, List<String> pool, long base) {
    return new PoolWalk(pool, base) {
      @Override
      long transition(String id, String to, long revision) throws Exception {
        return sqlite.transition(id, to);
      }

      @Override
      String allocate(long i) throws Exception {
        return sqlite.allocate(i, 1).get(0);
      }
    };
  }

  private static void transitions(BenchConfig config, Report report, RunRegistry ledgerSmall,
      RunRegistry ledgerLarge, List<String> poolSmall, List<String> poolLarge,
      SqliteRunRegistry sqlSmall, SqliteRunRegistry sqlLarge, List<String> sqlPoolSmall,
      List<String> sqlPoolLarge, int small, int large) throws Exception {
    String s = String.format("%,d runs", small);
    String l = String.format("%,d runs", large);
    Stats ls = report.stats(NAME, "transitionRun, ledger, " + s, "transitions/s");
    Stats ll = report.stats(NAME, "transitionRun, ledger, " + l, "transitions/s");
    Stats ss = report.stats(NAME, "guarded UPDATE + event INSERT, SQLite FULL, " + s,
        "transitions/s");
    Stats sl = report.stats(NAME, "guarded UPDATE + event INSERT, SQLite FULL, " + l,
        "transitions/s");
    List<PoolWalk> walks = List.of(ledgerWalk(ledgerSmall, poolSmall),
        ledgerWalk(ledgerLarge, poolLarge), sqliteWalk(sqlSmall, sqlPoolSmall),
        sqliteWalk(sqlLarge, sqlPoolLarge));
    List<Turns.Slice> slices = new ArrayList<>();
    for (PoolWalk walk : walks) {
      slices.add(millis -> loop(millis, walk::next));
    }
    for (int round = 0; round <= config.rounds(); round++) {
      double[] rates = Turns.rates(slices, config.roundMillis());
      if (round > 0) {
        ls.add(rates[0]);
        ll.add(rates[1]);
        ss.add(rates[2]);
        sl.add(rates[3]);
      }
    }
    report.ratio(NAME, "transitionRun ledger / SQLite FULL, " + s, ls, ss,
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "transitionRun ledger / SQLite FULL, " + l, ll, sl,
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "transitionRun ledger, " + l + " / " + s, ll, ls,
        Report.Goal.REPORT, 0);
    for (int i = 0; i < walks.size(); i++) {
      if (walks.get(i).refills > 0) {
        report.note(String.format("Registry scenario: transition contender %d used up its"
            + " pool and allocated %,d runs inside its timed slices.", i,
            walks.get(i).refills));
      }
    }
  }

  /**
   * The registry partition's checkpoints are rare (its journal grows to at least 64 MiB
   * between two, tens of thousands of transitions at the small size), so the timed rounds
   * above mostly hold none, while each one stalls the committing thread for the time it takes
   * to encode and write the whole state. This walks the small registry from just after one
   * checkpoint of its partition through the next one, the checkpoint included, in 100 ms
   * turns with SQLite walking its own pool: the transition rate over a whole checkpoint cycle,
   * side by side. Both walk runs allocated beforehand ({@link #CYCLE_RUNS} each; a walk that
   * uses its pool up allocates inside its turns, and the report says how often). Checkpoints
   * are counted by the store's {@code ledger.checkpoints} meter; if none comes in time
   * (below), the report says so and measures nothing.
   */
  private static void checkpointCycle(BenchConfig config, Report report, RunRegistry ledger,
      List<String> pool, SqliteRunRegistry sqlite, List<String> sqlPool,
      MeterRegistry meters, int small) throws Exception {
    // A cycle is tens of thousands of transitions: up to 4 minutes for each of the two
    // phases, 3 s in a smoke run (short rounds), which then notes that it measured nothing.
    long cap = config.roundMillis() >= 1000 ? TimeUnit.MINUTES.toNanos(4)
        : TimeUnit.SECONDS.toNanos(3);
    // Up to the first checkpoint, on runs of its own: its end is where the cycle starts.
    PoolWalk lead = ledgerWalk(ledger, List.of(), CYCLE_BASE + 1_000_000L);
    long start = System.nanoTime();
    double before = checkpoints(meters);
    while (checkpoints(meters) == before) {
      if (System.nanoTime() - start > cap) {
        report.note(String.format("Registry scenario: no checkpoint of the %,d-run partition"
            + " within %,d s of transitions; the checkpoint cycle was not measured.", small,
            TimeUnit.NANOSECONDS.toSeconds(cap)));
        return;
      }
      lead.next();
    }
    before = checkpoints(meters);
    PoolWalk walk = ledgerWalk(ledger, pool, CYCLE_BASE + 2_000_000L);
    PoolWalk sql = sqliteWalk(sqlite, sqlPool, CYCLE_BASE + 2_000_000L);
    long slice = TimeUnit.MILLISECONDS.toNanos(Math.max(1, config.roundMillis() / 10));
    long ledgerSteps = 0;
    long ledgerNanos = 0;
    long sqlSteps = 0;
    long sqlNanos = 0;
    long longest = 0;
    long t0 = System.nanoTime();
    boolean done = false;
    for (int turn = 0; !done; turn++) {
      if (System.nanoTime() - t0 > 2 * cap) {
        report.note(String.format("Registry scenario: the %,d-run partition's second"
            + " checkpoint did not come within %,d s; the checkpoint cycle was not measured.",
            small, TimeUnit.NANOSECONDS.toSeconds(cap)));
        return;
      }
      // Who goes first alternates, as in the timed rounds.
      for (int k = 0; k < 2; k++) {
        boolean ledgerTurn = (turn + k) % 2 == 0;
        long s0 = System.nanoTime();
        long deadline = s0 + slice;
        if (ledgerTurn) {
          do {
            long c0 = System.nanoTime();
            walk.next();
            longest = Math.max(longest, System.nanoTime() - c0);
            ledgerSteps++;
            if (checkpoints(meters) != before) {
              done = true;
              break;
            }
          } while (System.nanoTime() < deadline);
          ledgerNanos += System.nanoTime() - s0;
        } else {
          do {
            sql.next();
            sqlSteps++;
          } while (System.nanoTime() < deadline);
          sqlNanos += System.nanoTime() - s0;
        }
      }
    }
    String s = String.format("%,d runs", small);
    Stats ledgerStats = report.stats(NAME, "transitionRun over one whole checkpoint cycle of"
        + " the partition (the checkpoint included), ledger, " + s, "transitions/s");
    ledgerStats.add(ledgerSteps / (ledgerNanos / 1e9));
    Stats sqlStats = report.stats(NAME, "guarded UPDATE + event INSERT in turns with that"
        + " cycle, SQLite FULL, " + s, "transitions/s");
    sqlStats.add(sqlSteps / (sqlNanos / 1e9));
    report.stats(NAME, "the longest transition of that cycle (the checkpoint's stall), ledger, "
        + s, "ms").add(longest / 1e6);
    report.ratio(NAME, "transitionRun over one whole checkpoint cycle (" + String.format("%,d",
        ledgerSteps) + " transitions), ledger / SQLite FULL, " + s, ledgerStats, sqlStats,
        Report.Goal.REPORT, 0);
    if (walk.refills > 0 || sql.refills > 0) {
      report.note(String.format("Registry scenario: over the checkpoint cycle the ledger"
          + " allocated %,d runs and SQLite %,d inside their turns (pools of %,d used up).",
          walk.refills, sql.refills, pool.size()));
    }
  }

  private static double checkpoints(MeterRegistry meters) {
    return meters.find("ledger.checkpoints").counters().stream()
        .mapToDouble(c -> c.count()).sum();
  }

  private static void queries(BenchConfig config, Report report, RunRegistry ledgerSmall,
      RunRegistry ledgerLarge, SqliteRunRegistry sqlSmall, SqliteRunRegistry sqlLarge,
      int small, int large) throws Exception {
    String s = String.format("%,d runs", small);
    String l = String.format("%,d runs", large);
    String page = "listRuns (2 statuses, page of " + RegistryWorkload.PAGE + "), ";
    String lin = "listRecentLineages(" + RegistryWorkload.LINEAGES + ", "
        + RegistryWorkload.ATTEMPTS + "), ";
    Stats[] stats = {
        report.stats(NAME, page + "ledger, " + s, "us"),
        report.stats(NAME, page + "ledger, " + l, "us"),
        report.stats(NAME, page + "SQLite, " + s, "us"),
        report.stats(NAME, page + "SQLite, " + l, "us"),
        report.stats(NAME, lin + "ledger, " + s, "us"),
        report.stats(NAME, lin + "ledger, " + l, "us"),
        report.stats(NAME, lin + "SQLite, " + s, "us"),
        report.stats(NAME, lin + "SQLite, " + l, "us"),
    };
    Set<RunStatus> statuses = EnumSet.noneOf(RunStatus.class);
    for (String status : RegistryWorkload.QUERIED) {
      statuses.add(RunStatus.of(status));
    }
    List<String> sqlStatuses = List.copyOf(RegistryWorkload.QUERIED);
    RunFilters filters = RunFilters.any().withStatuses(statuses);
    int pageSmall = Math.min(RegistryWorkload.PAGE, RegistryWorkload.queriedCount(small));
    int pageLarge = Math.min(RegistryWorkload.PAGE, RegistryWorkload.queriedCount(large));
    int lineagesSmall = expectedLineageRuns(small);
    int lineagesLarge = expectedLineageRuns(large);
    int rootsSmall = Math.min(RegistryWorkload.LINEAGES, lineageCount(small));
    int rootsLarge = Math.min(RegistryWorkload.LINEAGES, lineageCount(large));
    for (int round = 0; round <= config.rounds(); round++) {
      double[] us = new double[stats.length];
      int reps = 20;
      for (int r = 0; r < reps; r++) {
        us[0] += micros(() -> check(pageSmall, ledgerSmall.listRuns(filters,
            RegistryWorkload.PAGE).size()));
        us[1] += micros(() -> check(pageLarge, ledgerLarge.listRuns(filters,
            RegistryWorkload.PAGE).size()));
        us[2] += micros(() -> check(pageSmall, sqlSmall.listRuns(sqlStatuses,
            RegistryWorkload.PAGE).size()));
        us[3] += micros(() -> check(pageLarge, sqlLarge.listRuns(sqlStatuses,
            RegistryWorkload.PAGE).size()));
      }
      int lineageReps = 5;
      for (int r = 0; r < lineageReps; r++) {
        // The ledger's clock stamps many runs in one millisecond: which lineages win the ties
        // is the registry's business (first run id, descending), so only their count is
        // checked; SQLite's timestamps are distinct.
        us[4] += micros(() -> check(rootsSmall, ledgerSmall.listRecentLineages(
            RegistryWorkload.LINEAGES, RegistryWorkload.ATTEMPTS).size()));
        us[5] += micros(() -> check(rootsLarge, ledgerLarge.listRecentLineages(
            RegistryWorkload.LINEAGES, RegistryWorkload.ATTEMPTS).size()));
        us[6] += micros(() -> check(lineagesSmall, sqlSmall.recentLineages(
            RegistryWorkload.LINEAGES, RegistryWorkload.ATTEMPTS).size()));
        us[7] += micros(() -> check(lineagesLarge, sqlLarge.recentLineages(
            RegistryWorkload.LINEAGES, RegistryWorkload.ATTEMPTS).size()));
      }
      if (round > 0) {
        for (int i = 0; i < stats.length; i++) {
          stats[i].add(us[i] / (i < 4 ? reps : lineageReps));
        }
      }
    }
    report.ratio(NAME, "listRuns time, ledger " + l + " / " + s, stats[1], stats[0],
        Report.Goal.AT_MOST, 1.5);
    report.ratio(NAME, "listRuns speed, ledger / SQLite, " + l, stats[3], stats[1],
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "listRuns speed, ledger / SQLite, " + s, stats[2], stats[0],
        Report.Goal.REPORT, 0);
    report.ratio(NAME, "listRecentLineages speed, ledger / SQLite, " + l, stats[7], stats[5],
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "listRecentLineages speed, ledger / SQLite, " + s, stats[6], stats[4],
        Report.Goal.REPORT, 0);
  }

  /**
   * The large registry opened cold, each time in a fresh JVM ({@link RegistryFootprint#open}):
   * the store, the registry and the first {@code listRuns} page, against SQLite opening its
   * file and answering the same query; and the heap the open registry holds after GC, per
   * run, against the JSON size of a run record. Runs while nothing else has the store open,
   * before the transition pool is added, so it sees exactly {@code large} runs.
   */
  private static void coldOpen(BenchConfig config, Report report, Path storeDir, Path sqlite,
      int large) throws Exception {
    String l = String.format("%,d runs", large);
    Stats ledgerMs = report.stats(NAME, "cold open + first listRuns, ledger, fresh JVM, " + l,
        "ms");
    Stats ledgerCpu = report.stats(NAME, "cold open + first listRuns, ledger, process CPU"
        + " (all threads), " + l, "ms");
    Stats sqliteMs = report.stats(NAME, "cold open + first listRuns, SQLite, fresh JVM, " + l,
        "ms");
    Stats sqliteCpu = report.stats(NAME, "cold open + first listRuns, SQLite, process CPU, "
        + l, "ms");
    Stats held = report.stats(NAME, "heap held by the open registry after GC, per run, " + l,
        "bytes");
    Stats json = report.stats(NAME, "a run record as JSON (the listRuns page's mean)",
        "bytes");
    Stats heapRatio = report.stats(NAME, "heap per run / run record JSON size, " + l, "x");
    int page = Math.min(RegistryWorkload.PAGE, RegistryWorkload.queriedCount(large));
    int rounds = Math.max(1, Math.min(config.rounds(), 3));
    for (int round = 0; round < rounds; round++) {
      // Alternate which side opens first, so neither always finds the page cache warmer.
      for (int k = 0; k < 2; k++) {
        if ((round + k) % 2 == 0) {
          Map<String, Double> r = RegistryFootprint.open("ledger", storeDir, "registry-large");
          check(page, (int) (double) r.get("rows"));
          ledgerMs.add(r.get("ms"));
          ledgerCpu.add(r.get("cpuMs"));
          double perRun = r.get("heldBytes") / large;
          held.add(perRun);
          json.add(r.get("recordJsonBytes"));
          heapRatio.add(perRun / r.get("recordJsonBytes"));
        } else {
          Map<String, Double> r = RegistryFootprint.open("sqlite", sqlite, null);
          check(page, (int) (double) r.get("rows"));
          sqliteMs.add(r.get("ms"));
          sqliteCpu.add(r.get("cpuMs"));
        }
      }
    }
    report.ratio(NAME, "cold open + first listRuns time, ledger / SQLite, " + l, ledgerMs,
        sqliteMs, Report.Goal.REPORT, 0);
    report.ratio(NAME, "heap per run / run record JSON size, " + l, heapRatio.median(),
        Report.Goal.REPORT, 0, "");
    report.note(String.format(Locale.ROOT, "Registry cold open: %d rounds, each side in its own"
        + " fresh JVM (default heap) on the filled stores, the ledger opening its store"
        + " (FileLedgerStore.open, the checkpoint plus the journal after it) and the registry"
        + " and answering the first listRuns page, SQLite opening its file and answering the"
        + " same query; wall and process CPU from before the open to the page in hand. Heap:"
        + " used heap after GC with the registry open, minus before the open, over the runs"
        + " (its run events, workspaces, indexes and ordered index included).", rounds));
  }

  private static int lineageCount(int count) {
    int n = 0;
    for (RegistryWorkload.Placement p : RegistryWorkload.placements(count)) {
      if (p.attempt() == 1) {
        n++;
      }
    }
    return n;
  }

  /**
   * Runs in the 50 newest lineages of {@code count} runs: the lineages are laid end to end
   * and updated in order, so the newest are the last ones (the last possibly cut short).
   */
  private static int expectedLineageRuns(int count) {
    RegistryWorkload.Placement[] placements = RegistryWorkload.placements(count);
    int runs = 0;
    int lineages = 0;
    for (int i = count - 1; i >= 0 && lineages < RegistryWorkload.LINEAGES; i--) {
      runs++;
      if (placements[i].attempt() == 1) {
        lineages++;
      }
    }
    return runs;
  }
}
