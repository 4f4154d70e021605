package dev.ledger.bench;

import static dev.ledger.bench.Timing.check;
import static dev.ledger.bench.Timing.loop;
import static dev.ledger.bench.Timing.micros;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Query;
import dev.ledger.collections.Queue;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.Durability;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.spi.PatchLog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Scenario 12: ledger-collections against SQLite (WAL, {@code synchronous=FULL}, documents as
 * JSON text with an expression index on the indexed field, see {@link SqliteCollections}),
 * at a small and a large partition ({@link BenchConfig#collectionDocs}):
 *
 * <ul>
 *   <li>the transaction "update one document + enqueue one item + dequeue one", durable;
 *   <li>bytes written per transaction at the large size, checkpoints included (every
 *       {@code write} of the process, from {@code /proc/self/io}): the durable
 *       transactions' own, plus the checkpoint's share over one whole checkpoint cycle, see
 *       {@link #checkpointCycle};
 *   <li>an indexed {@code exact} query returning 50 documents, and an unindexed filter that
 *       scans the large partition (SQLite scans with {@code json_extract}); both sides map
 *       the documents they return to records;
 *   <li>the cold open of the large partition (a new store, first read) against Jackson
 *       parsing the same documents from one file, and the heap the open view holds per
 *       document against its JSON size;
 *   <li>{@code threads} threads on one partition, and {@code threads} partitions on as many
 *       threads, against one thread on one partition.
 * </ul>
 *
 * <p>The partitions are filled through the collection API on a store without {@code force}
 * (the same records as with it) and reopened with the default durability before anything is
 * measured, as the registry scenario does; SQLite is filled by batched inserts.
 */
final class CollectionScenario {
  static final String NAME = "12. Collections (ledger-collections vs SQLite FULL)";
  static final Schema SCHEMA = Schema.builder()
      .collection("rollouts", CollectionWorkload.BenchDoc.class, List.of("id"), List.of("group"))
      .queue("pending", CollectionWorkload.BenchItem.class)
      .build();
  private static final int QUEUED = 100;

  private CollectionScenario() {}

  static void run(BenchConfig config, Report report) throws Exception {
    int small = config.collectionDocs().get(0);
    int large = config.collectionDocs().get(1);
    int threads = config.threads();
    Path dir = config.dir().resolve("s12");
    // A partition of 100,000 documents of 1 KiB is a 100 MB state: room for its checkpoints.
    LedgerOptions options = LedgerOptions.defaults().withLimits(512 << 20, 1 << 20);
    LedgerOptions fast = options.withDurability(Durability.UNSAFE_NO_SYNC);
    Path storeDir = dir.resolve("ledger");
    long t0 = System.nanoTime();
    try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
      CollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
      populate(collections, "small", small);
      populate(collections, "large", large);
      for (int p = 0; p < threads; p++) {
        populate(collections, "part-" + p, small);
      }
    }
    double fillLedger = (System.nanoTime() - t0) / 1e9;
    SqliteCollections sqliteSmall = new SqliteCollections(dir.resolve("sqlite/small.db"));
    SqliteCollections sqliteLarge = new SqliteCollections(dir.resolve("sqlite/large.db"));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    Stats bytes;
    try {
      long t1 = System.nanoTime();
      sqliteSmall.populate(small, QUEUED);
      sqliteLarge.populate(large, QUEUED);
      double fillSql = (System.nanoTime() - t1) / 1e9;
      report.note(String.format("Collections scenario: the partitions (%,d and %,d documents of"
          + " about 1 KiB, and %d of %,d) filled through transactions of 1,000 inserts on a"
          + " store without force in %.1f s, then reopened with the default durability before"
          + " anything is measured; SQLite filled by batched inserts in one transaction in"
          + " %.1f s.", small, large, threads, small, fillLedger, fillSql));
      try (FileLedgerStore store = FileLedgerStore.open(storeDir, options)) {
        CollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
        bytes = transactions(config, report, collections, sqliteSmall, sqliteLarge, small,
            large);
        queries(config, report, collections, sqliteSmall, sqliteLarge, small, large);
        concurrency(config, report, collections, pool, small, threads);
      }
      checkpointCycle(report, bytes, storeDir, fast, large);
      coldOpen(config, report, storeDir, large, dir);
    } finally {
      pool.shutdownNow();
      sqliteSmall.close();
      sqliteLarge.close();
    }
  }

  static void populate(CollectionStore collections, String partition, int docs) {
    int batch = 1000;
    for (int from = 0; from < docs; from += batch) {
      int start = from;
      int end = Math.min(docs, from + batch);
      collections.execute(partition, tx -> {
        List<CollectionWorkload.BenchDoc> list = new ArrayList<>(end - start);
        for (int i = start; i < end; i++) {
          list.add(CollectionWorkload.doc(i, 0));
        }
        tx.collection("rollouts", CollectionWorkload.BenchDoc.class).insert(list);
        return null;
      });
    }
    collections.execute(partition, tx -> {
      List<CollectionWorkload.BenchItem> items = new ArrayList<>();
      for (int i = 0; i < QUEUED; i++) {
        items.add(new CollectionWorkload.BenchItem(CollectionWorkload.id(i), i));
      }
      tx.queue("pending", CollectionWorkload.BenchItem.class).enqueue(items);
      return null;
    });
  }

  /** The benchmark's transaction on a partition of {@code docs} documents. */
  static void transaction(CollectionStore collections, String partition, int docs,
      long attempt) {
    long i = ThreadLocalRandom.current().nextLong(docs);
    collections.execute(partition, tx -> {
      Collection<CollectionWorkload.BenchDoc> rollouts =
          tx.collection("rollouts", CollectionWorkload.BenchDoc.class);
      Queue<CollectionWorkload.BenchItem> pending =
          tx.queue("pending", CollectionWorkload.BenchItem.class);
      rollouts.update(List.of(CollectionWorkload.doc(i, attempt)));
      pending.enqueue(List.of(new CollectionWorkload.BenchItem(CollectionWorkload.id(i),
          attempt)));
      if (pending.dequeue(1).size() != 1) {
        throw new IllegalStateException("queue of " + partition + " is empty");
      }
      return null;
    });
  }

  /** Times the transaction; returns the bytes written per durable transaction, large size. */
  private static Stats transactions(BenchConfig config, Report report,
      CollectionStore collections, SqliteCollections sqliteSmall, SqliteCollections sqliteLarge,
      int small, int large) throws Exception {
    String s = String.format("%,d docs", small);
    String l = String.format("%,d docs", large);
    Stats ledgerSmall = report.stats(NAME, "transaction, ledger, " + s, "tx/s");
    Stats ledgerLarge = report.stats(NAME, "transaction, ledger, " + l, "tx/s");
    Stats sqlSmall = report.stats(NAME, "transaction, SQLite FULL, " + s, "tx/s");
    Stats sqlLarge = report.stats(NAME, "transaction, SQLite FULL, " + l, "tx/s");
    Stats bytes = report.stats(NAME, "bytes written per transaction in the timed rounds"
        + " (journal; a checkpoint only if one fell in them), " + l, "bytes");
    AtomicLong attempt = new AtomicLong(1);
    AtomicLong largeCount = new AtomicLong();
    AtomicLong largeWritten = new AtomicLong();
    List<Turns.Slice> slices = List.of(
        millis -> loop(millis, () -> transaction(collections, "small", small,
            attempt.incrementAndGet())),
        millis -> {
          long before = writtenByThisProcess();
          long n = loop(millis, () -> transaction(collections, "large", large,
              attempt.incrementAndGet()));
          largeWritten.addAndGet(writtenByThisProcess() - before);
          largeCount.addAndGet(n);
          return n;
        },
        millis -> loop(millis, () -> sqliteSmall.transaction(
            ThreadLocalRandom.current().nextLong(small), attempt.incrementAndGet())),
        millis -> loop(millis, () -> sqliteLarge.transaction(
            ThreadLocalRandom.current().nextLong(large), attempt.incrementAndGet())));
    for (int round = 0; round <= config.rounds(); round++) {
      largeCount.set(0);
      largeWritten.set(0);
      double[] rates = Turns.rates(slices, config.roundMillis());
      if (round > 0) {
        ledgerSmall.add(rates[0]);
        ledgerLarge.add(rates[1]);
        sqlSmall.add(rates[2]);
        sqlLarge.add(rates[3]);
        bytes.add((double) largeWritten.get() / Math.max(1, largeCount.get()));
      }
    }
    report.ratio(NAME, "ledger / SQLite FULL, transaction, " + s, ledgerSmall, sqlSmall,
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "ledger / SQLite FULL, transaction, " + l, ledgerLarge, sqlLarge,
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "ledger transaction, " + l + " / " + s, ledgerLarge, ledgerSmall,
        Report.Goal.AT_LEAST, 0.9);
    return bytes;
  }

  /** The bytes of the documents a transaction changes: the updated document and the item. */
  private static long changedBytes() {
    return Workload.toJson(CollectionWorkload.doc(0, 1)).length
        + Workload.toJson(new CollectionWorkload.BenchItem(CollectionWorkload.id(0), 1)).length;
  }

  /**
   * The checkpoint's share of the bytes a transaction writes at the large size, over one whole
   * checkpoint cycle: from right after one checkpoint to the commit that wrote the next. The
   * cycle runs without force (forces change no byte of the checkpoint, and the cycle's length
   * in transactions depends only on the journal bytes each adds), so that a cycle of 100,000
   * documents takes seconds, not the minutes of ~100,000 durable commits. The judged figure
   * is the durable transactions' own writes per transaction in the timed rounds (journal and
   * preallocated zeros; a checkpoint too if one fell in them, which only overstates) plus the
   * checkpoint's bytes divided by the cycle's transactions. The cycle's own writes per
   * transaction without force (journal, checkpoint, command index) are a row as a
   * cross-check. After the cycle, half a cycle more is committed, so that the cold open that
   * follows replays the journal a partition holds on average under the checkpoint policy
   * (just before a checkpoint it is twice that).
   */
  private static void checkpointCycle(Report report, Stats durable, Path storeDir,
      LedgerOptions fast, int large) throws Exception {
    String l = String.format("%,d docs", large);
    AtomicLong attempt = new AtomicLong(10_000_000);
    long skipped;
    long count;
    long written;
    long checkpointBytes;
    double seconds;
    try (FileLedgerStore store = FileLedgerStore.open(storeDir, fast)) {
      CollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
      skipped = untilCheckpoint(store, collections, large, attempt);
      long before = writtenByThisProcess();
      long t0 = System.nanoTime();
      count = untilCheckpoint(store, collections, large, attempt);
      seconds = (System.nanoTime() - t0) / 1e9;
      written = writtenByThisProcess() - before;
      checkpointBytes = Files.size(storeDir.resolve("ledgers").resolve("large")
          .resolve("state.json"));
      for (long i = 0; i < count / 2; i++) {
        transaction(collections, "large", large, attempt.incrementAndGet());
      }
    }
    Stats share = report.stats(NAME, "checkpoint bytes per transaction (checkpoint size /"
        + " transactions in its cycle), " + l, "bytes");
    share.add((double) checkpointBytes / count);
    Stats cycle = report.stats(NAME, "bytes written per transaction over one checkpoint cycle"
        + " without force (journal + checkpoint), " + l, "bytes");
    cycle.add((double) written / count);
    long changed = changedBytes();
    report.note(String.format("Collections scenario: one checkpoint cycle of the %s partition"
        + " took %,d transactions without force in %.0f s (%,d before it reached its start)"
        + " and wrote %,d bytes; its checkpoint (state.json) is %,d bytes. The cold open"
        + " replays the journal of half a cycle more.", l, count, seconds, skipped, written,
        checkpointBytes));
    report.ratio(NAME, "bytes per transaction, durable rounds + checkpoint share, / (4 x"
        + " changed bytes + 4 KiB), " + l, (durable.median() + share.median())
        / (4.0 * changed + 4096), Report.Goal.AT_MOST, 1.0,
        String.format("changed %,d bytes per transaction", changed));
  }

  /**
   * Runs the benchmark's transaction on the large partition until a commit writes a
   * checkpoint (the journal since the checkpoint shrinks); returns how many ran. Gives up
   * after 20 transactions per document: a policy sized to the data checkpoints long before.
   */
  private static long untilCheckpoint(FileLedgerStore store, CollectionStore collections,
      int docs, AtomicLong attempt) {
    long max = 20L * docs + 100_000;
    PatchLog log = store.patchLog("large");
    long since = log.journalBytesSinceCheckpoint();
    for (long n = 1; n <= max; n++) {
      transaction(collections, "large", docs, attempt.incrementAndGet());
      long now = log.journalBytesSinceCheckpoint();
      if (now < since) {
        return n;
      }
      since = now;
    }
    throw new IllegalStateException("no checkpoint of the large partition after " + max
        + " transactions");
  }

  private static void queries(BenchConfig config, Report report, CollectionStore collections,
      SqliteCollections sqliteSmall, SqliteCollections sqliteLarge, int small, int large)
      throws Exception {
    String s = String.format("%,d docs", small);
    String l = String.format("%,d docs", large);
    Stats ledgerSmall = report.stats(NAME, "indexed exact query (50 docs), ledger, " + s, "us");
    Stats ledgerLarge = report.stats(NAME, "indexed exact query (50 docs), ledger, " + l, "us");
    Stats sqlLarge = report.stats(NAME, "indexed exact query (50 docs), SQLite, " + l, "us");
    Stats sqlSmall = report.stats(NAME, "indexed exact query (50 docs), SQLite, " + s, "us");
    Stats scanLedger = report.stats(NAME, "unindexed filter, ledger, " + l, "us");
    Stats scanSql = report.stats(NAME, "unindexed filter (json_extract), SQLite, " + l, "us");
    for (int round = 0; round <= config.rounds(); round++) {
      double[] us = new double[6];
      int reps = 20;
      for (int r = 0; r < reps; r++) {
        us[0] += micros(() -> check(50, groupQuery(collections, "small", small)));
        us[1] += micros(() -> check(50, groupQuery(collections, "large", large)));
        us[2] += micros(() -> check(50, sqliteSmall.queryGroup(randomGroup(small))));
        us[3] += micros(() -> check(50, sqliteLarge.queryGroup(randomGroup(large))));
      }
      int scans = 3;
      for (int r = 0; r < scans; r++) {
        String worker = CollectionWorkload.worker(ThreadLocalRandom.current().nextInt(1000));
        int expected = matchesOfWorker(large, worker);
        us[4] += micros(() -> check(expected, collections.read("large",
            v -> v.collection("rollouts", CollectionWorkload.BenchDoc.class)
                .query(Query.builder().exact("worker", worker).build()).items().size())));
        us[5] += micros(() -> check(expected, sqliteLarge.scanWorker(worker)));
      }
      if (round > 0) {
        ledgerSmall.add(us[0] / reps);
        ledgerLarge.add(us[1] / reps);
        sqlSmall.add(us[2] / reps);
        sqlLarge.add(us[3] / reps);
        scanLedger.add(us[4] / scans);
        scanSql.add(us[5] / scans);
      }
    }
    report.ratio(NAME, "indexed query time, ledger " + l + " / " + s, ledgerLarge, ledgerSmall,
        Report.Goal.AT_MOST, 1.5);
    report.ratio(NAME, "indexed query speed, ledger / SQLite, " + l, sqlLarge, ledgerLarge,
        Report.Goal.AT_LEAST, 1.0);
    report.ratio(NAME, "unindexed filter speed, ledger / SQLite, " + l, scanSql, scanLedger,
        Report.Goal.AT_LEAST, 1.0);
  }

  static String randomGroup(int docs) {
    return CollectionWorkload.group(
        ThreadLocalRandom.current().nextLong(docs / CollectionWorkload.GROUP_SIZE)
            * CollectionWorkload.GROUP_SIZE);
  }

  static int groupQuery(CollectionStore collections, String partition, int docs) {
    String group = randomGroup(docs);
    return collections.read(partition,
        v -> v.collection("rollouts", CollectionWorkload.BenchDoc.class)
            .query(Query.builder().exact("group", group).build()).items().size());
  }

  private static int matchesOfWorker(int docs, String worker) {
    int w = Integer.parseInt(worker.substring("worker-".length()));
    return docs / 1000 + (w < docs % 1000 ? 1 : 0);
  }

  private static void concurrency(BenchConfig config, Report report,
      CollectionStore collections, ExecutorService pool, int docs, int threads)
      throws Exception {
    Stats one = report.stats(NAME, "1 thread, 1 partition", "tx/s");
    Stats shared = report.stats(NAME, threads + " threads, 1 partition", "tx/s");
    Stats spread = report.stats(NAME, threads + " threads, " + threads + " partitions", "tx/s");
    AtomicLong attempt = new AtomicLong(1_000_000);
    List<Turns.Slice> slices = List.of(
        millis -> loop(millis, () -> transaction(collections, "part-0", docs,
            attempt.incrementAndGet())),
        millis -> parallel(pool, threads, millis, t -> "part-0", collections, docs, attempt),
        millis -> parallel(pool, threads, millis, t -> "part-" + t, collections, docs, attempt));
    for (int round = 0; round <= config.rounds(); round++) {
      double[] rates = Turns.rates(slices, config.roundMillis());
      if (round > 0) {
        one.add(rates[0]);
        shared.add(rates[1]);
        spread.add(rates[2]);
      }
    }
    report.ratio(NAME, threads + " threads on 1 partition / 1 thread", shared, one,
        Report.Goal.AT_LEAST, 1.5);
    report.ratio(NAME, threads + " partitions on " + threads + " threads / 1 partition", spread,
        one, Report.Goal.AT_LEAST, 2.0);
  }

  private interface PartitionOf {
    String of(int thread);
  }

  private static long parallel(ExecutorService pool, int threads, long millis,
      PartitionOf partitions, CollectionStore collections, int docs, AtomicLong attempt)
      throws Exception {
    List<Future<Long>> futures = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      String partition = partitions.of(t);
      futures.add(pool.submit(() -> loop(millis,
          () -> transaction(collections, partition, docs, attempt.incrementAndGet()))));
    }
    long total = 0;
    for (Future<Long> f : futures) {
      total += f.get();
    }
    return total;
  }

  private static void coldOpen(BenchConfig config, Report report, Path storeDir,
      int large, Path dir) throws Exception {
    String l = String.format("%,d docs", large);
    Stats open = report.stats(NAME, "cold open + first read, ledger, " + l, "ms");
    Stats parse = report.stats(NAME, "Jackson parse of the same documents from one file, " + l,
        "ms");
    Stats heap = report.stats(NAME, "heap per document / its JSON size, " + l, "x");
    Stats tokens = report.stats(NAME, "Jackson token pass over the partition's checkpoint"
        + " (state.json; every token read, no tree built), " + l, "ms");
    Stats openCpu = report.stats(NAME, "cold open + first read, process CPU (all threads, GC"
        + " and JIT included), " + l, "ms");
    Stats parseCpu = report.stats(NAME, "Jackson parse of the same documents, process CPU, "
        + l, "ms");
    Path docs = dir.resolve("docs.json");
    long jsonBytes;
    try (var out = Files.newOutputStream(docs)) {
      List<CollectionWorkload.BenchDoc> all = new ArrayList<>(large);
      for (int i = 0; i < large; i++) {
        all.add(CollectionWorkload.doc(i, 0));
      }
      Workload.JSON.writeValue(out, all);
    }
    jsonBytes = Files.size(docs);
    for (int round = 0; round <= config.rounds(); round++) {
      long before = usedHeap();
      long c0 = processCpuNanos();
      long t0 = System.nanoTime();
      FileLedgerStore store = FileLedgerStore.openReadOnly(storeDir);
      CollectionStore collections = PatchLogCollectionStore.on(store, SCHEMA);
      long size = collections.read("large",
          v -> v.collection("rollouts", CollectionWorkload.BenchDoc.class).size());
      double openMs = (System.nanoTime() - t0) / 1e6;
      double openCpuMs = (processCpuNanos() - c0) / 1e6;
      long held = usedHeap() - before;
      check(large, (int) size);
      long c1 = processCpuNanos();
      long t1 = System.nanoTime();
      JsonNode tree = Workload.JSON.readTree(docs.toFile());
      double parseMs = (System.nanoTime() - t1) / 1e6;
      double parseCpuMs = (processCpuNanos() - c1) / 1e6;
      check(large, tree.size());
      tree = null;
      long t2 = System.nanoTime();
      long tokenCount = tokenPass(storeDir.resolve("ledgers/large/state.json"));
      double tokensMs = (System.nanoTime() - t2) / 1e6;
      if (tokenCount < large) {
        throw new IllegalStateException("token pass read " + tokenCount + " tokens");
      }
      if (round > 0) {
        tokens.add(tokensMs);
        open.add(openMs);
        parse.add(parseMs);
        heap.add((double) held / jsonBytes);
        openCpu.add(openCpuMs);
        parseCpu.add(parseCpuMs);
      }
      // Keep the view reachable until the heap was measured.
      check(large, (int) (long) collections.read("large",
          v -> v.collection("rollouts", CollectionWorkload.BenchDoc.class).size()));
      store.close();
    }
    report.ratio(NAME, "cold open / Jackson parse, " + l, open, parse, Report.Goal.AT_MOST, 2.0);
    report.ratio(NAME, "Jackson token pass over the checkpoint / Jackson parse of the documents"
        + " (the checkpoint's share of the open's least cost), " + l, tokens, parse,
        Report.Goal.REPORT, 0);
    report.ratio(NAME, "heap per document / JSON size, " + l, heap.median(),
        Report.Goal.AT_MOST, 3.0, "aim");
  }

  /**
   * Reads every token of a file with Jackson's streaming parser, building nothing: the least
   * a reader of that JSON pays. Returns the number of tokens.
   */
  private static long tokenPass(Path file) throws IOException {
    long count = 0;
    try (com.fasterxml.jackson.core.JsonParser in =
        Workload.JSON.getFactory().createParser(file.toFile())) {
      while (in.nextToken() != null) {
        count++;
      }
    }
    return count;
  }

  /**
   * CPU time of the whole process so far: the cold open runs on two threads, so one thread's
   * time would leave out the journal's reader; less sensitive to other processes' load than
   * the wall clock.
   */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
        java.lang.management.ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  /**
   * Bytes this process has handed to {@code write} calls so far ({@code wchar} of
   * {@code /proc/self/io}): journal records, preallocated zeros, checkpoints and command index
   * entries alike. Taken around the large partition's slice only, in which nothing else
   * writes. NaN-free: -1 where the file does not exist (not Linux), which makes the row
   * negative rather than plausible.
   */
  private static long writtenByThisProcess() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("wchar:")) {
          return Long.parseLong(line.substring("wchar:".length()).trim());
        }
      }
      return -1;
    } catch (IOException e) {
      return -1;
    }
  }
}
