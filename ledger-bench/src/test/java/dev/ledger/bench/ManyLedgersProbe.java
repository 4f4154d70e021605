package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Random;

/**
 * A hand-run probe of what a durable commit on a ledger whose writer is not cached costs, for
 * {@code strace -c -p <tid>} and per-commit CPU (not part of the build's tests: a main).
 *
 * <pre>
 * setup  DIR N        N ledgers l0000000.. with one commit each, without force (as scenario 9)
 * first  DIR N F K    K commits on distinct random ledgers (positions F.. of a seeded
 *                     order of all N), each the first this store makes (the writer recovers
 *                     it from its files); the ledgers must be at revision 1 (untouched since
 *                     setup), so each run takes its own range of positions
 * parked DIR N F K    K + limit ledgers (positions F..) committed once (parking all but the
 *                     last ones), then K of the parked ones again: the measured commits
 *                     unpark
 * hot    DIR K        K commits on one ledger
 * floor  DIR N K      N one-record files written and synced, then K times: open one of
 *                     them at random, append a record, fdatasync, close (RandomFileFloor,
 *                     with the records' sizes of scenario 9)
 * zeros  DIR N K      the device cost of a page of zeros after a parked ledger's record:
 *                     two sets of N one-record files, in turns of 100 ms slices for about
 *                     K ms each: the floor as above, and the floor that also writes zeros
 *                     to a page boundary a page past the record before its fdatasync and
 *                     cuts them (truncate, no force) 64 commits later, as a parked writer
 *                     did before its first extension wrote no zeros
 * lock   DIR N K      the device cost of a ledger's lock file, in the same turns: the floor,
 *                     and the floor that first opens a lock file beside the file, locks it,
 *                     writes a 29-byte holder line, and 64 commits later empties and closes
 *                     it (as a writer's kept lock channel is released when it is parked)
 * </pre>
 *
 * <p>Before the measured loop it prints {@code TID <tid>} (the committing thread) and waits
 * until the file {@code DIR/go} exists; after it, it prints the per-commit figures and waits
 * until {@code DIR/end} exists, so that a tracer attached to the thread sees only the loop.
 * Without {@code -Dprobe.wait=true} it does not wait.
 */
public final class ManyLedgersProbe {
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private ManyLedgersProbe() {}

  /**
   * Runs one mode (see the class comment) and prints its per-commit figures.
   *
   * @param args the mode and its arguments
   * @throws Exception whatever the mode's I/O throws; an unknown mode is an
   *     {@link IllegalArgumentException}
   */
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Path dir = Path.of(args[1]);
    Random random = new Random(Long.getLong("probe.seed", 13));
    switch (mode) {
      case "setup" -> setup(dir, Integer.parseInt(args[2]));
      case "first" -> first(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]),
          Integer.parseInt(args[4]), random);
      case "parked" -> parked(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]),
          Integer.parseInt(args[4]), random);
      case "hot" -> hot(dir, Integer.parseInt(args[2]));
      case "floor" -> floor(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]), random);
      case "lock" -> lock(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]), random);
      case "zeros" -> zeros(dir, Integer.parseInt(args[2]), Integer.parseInt(args[3]), random);
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
  }

  private static void setup(Path dir, int n) {
    LedgerOptions setup = LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC);
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), setup)) {
      for (int i = 0; i < n; i++) {
        store.ledger(name(i), Workload.BenchState.class).commit(Ledger.NO_REVISION,
            Workload.state(1), Workload.event(1));
      }
    }
  }

  private static void first(Path dir, int n, int from, int k, Random random)
      throws Exception {
    int[] order = Arrays.copyOfRange(ManyLedgersScenario.permutation(n, random), from, from + k);
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"))) {
      warmUp(store);
      Measure m = start(dir, "first-touch commits");
      for (int j = 0; j < k; j++) {
        commitNext(store, order[j]);
      }
      m.stop(k);
    }
  }

  private static void parked(Path dir, int n, int from, int k, Random random)
      throws Exception {
    int limit = LedgerOptions.DEFAULT_OPEN_WRITER_LIMIT;
    int[] order = Arrays.copyOfRange(ManyLedgersScenario.permutation(n, random), from, from + k + limit);
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"))) {
      warmUp(store);
      for (int j = 0; j < k + limit; j++) {
        commitNext(store, order[j]);
      }
      Measure m = start(dir, "commits that unpark");
      for (int j = 0; j < k; j++) {
        commitNext(store, order[j]);
      }
      m.stop(k);
    }
  }

  private static void hot(Path dir, int k) throws Exception {
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"))) {
      Ledger<Workload.BenchState> hot = store.ledger("hot", Workload.BenchState.class);
      long r = hot.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
      for (int j = 0; j < 200; j++) {
        r = hot.commit(r, Workload.state(r + 1), Workload.event(r + 1)).revision();
      }
      Measure m = start(dir, "hot commits");
      for (int j = 0; j < k; j++) {
        r = hot.commit(r, Workload.state(r + 1), Workload.event(r + 1)).revision();
      }
      m.stop(k);
    }
  }

  private static void floor(Path dir, int n, int k, Random random) throws Exception {
    int[] bytes = ManyLedgersScenario.recordBytes(dir.resolve("record-size"),
        LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC));
    RandomFileFloor floor = RandomFileFloor.create(dir.resolve("floor"), n, bytes[0], bytes[1],
        random);
    if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
      throw new IllegalStateException("sync failed");
    }
    Measure m = start(dir, "floor: open + append + fdatasync + close");
    for (int j = 0; j < k; j++) {
      floor.commit();
    }
    m.stop(k);
  }

  private static void zeros(Path dir, int n, int millis, Random random) throws Exception {
    int[] bytes = ManyLedgersScenario.recordBytes(dir.resolve("record-size"),
        LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC));
    RandomFileFloor plain = RandomFileFloor.create(dir.resolve("plain"), n, bytes[0], bytes[1],
        random);
    Path padded = dir.resolve("padded");
    RandomFileFloor.create(padded, n, bytes[0], bytes[1], random);
    if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
      throw new IllegalStateException("sync failed");
    }
    int[] order = ManyLedgersScenario.permutation(n, random);
    java.util.ArrayDeque<long[]> toCut = new java.util.ArrayDeque<>();
    byte[] record = new byte[bytes[1]];
    Arrays.fill(record, (byte) 'x');
    record[record.length - 1] = '\n';
    int[] next = {0};
    CommitTarget withZeros = new CommitTarget() {
      @Override
      public void commit() throws Exception {
        int i = order[next[0]++ % n];
        Path file = padded.resolve(String.format(Locale.ROOT, "f%07d", i));
        try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.WRITE)) {
          long end = c.size();
          c.write(java.nio.ByteBuffer.wrap(record), end);
          end += record.length;
          long to = (end + 4096 + 4095) / 4096 * 4096;
          java.nio.ByteBuffer page = java.nio.ByteBuffer.allocate(4096);
          for (long at = end; at < to; at = (at / 4096 + 1) * 4096) {
            page.clear().limit((int) (Math.min(to, (at / 4096 + 1) * 4096) - at));
            c.write(page, at);
          }
          c.force(false);
          toCut.add(new long[] {i, end});
        }
        if (toCut.size() > LedgerOptions.DEFAULT_OPEN_WRITER_LIMIT) {
          long[] cut = toCut.poll();
          try (java.nio.channels.FileChannel c = java.nio.channels.FileChannel.open(
              padded.resolve(String.format(Locale.ROOT, "f%07d", cut[0])),
              java.nio.file.StandardOpenOption.WRITE)) {
            c.truncate(cut[1]);
          }
        }
      }

      @Override
      public void close() {}
    };
    java.util.List<Turns.Slice> slices = java.util.List.of(Turns.of(plain), Turns.of(withZeros));
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    for (int round = 0; round < 3; round++) {
      double[] rates = Turns.rates(slices, millis / 3);
      System.out.printf(Locale.ROOT, "round %d: floor %.0f/s, floor with a page of zeros then"
          + " a cut %.0f/s, ratio %.2f; load %s%n", round, rates[0], rates[1],
          rates[1] / rates[0], Files.readString(Path.of("/proc/loadavg")).trim());
    }
    System.out.printf(Locale.ROOT, "records %d then %d bytes; thread CPU %.1f s%n", bytes[0],
        bytes[1], (THREADS.getCurrentThreadCpuTime() - cpu0) / 1e9);
  }

  private static void lock(Path dir, int n, int millis, Random random) throws Exception {
    int[] bytes = ManyLedgersScenario.recordBytes(dir.resolve("record-size"),
        LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC));
    RandomFileFloor plain = RandomFileFloor.create(dir.resolve("plain"), n, bytes[0], bytes[1],
        random);
    Path locked = dir.resolve("locked");
    RandomFileFloor lockedFloor = RandomFileFloor.create(locked, n, bytes[0], bytes[1],
        new Random(random.nextLong()));
    for (int i = 0; i < n; i++) {
      Files.createFile(locked.resolve(String.format(Locale.ROOT, "l%07d", i)));
    }
    if (new ProcessBuilder("sync").inheritIO().start().waitFor() != 0) {
      throw new IllegalStateException("sync failed");
    }
    int[] order = ManyLedgersScenario.permutation(n, new Random(random.nextLong()));
    java.util.ArrayDeque<java.nio.channels.FileChannel> kept = new java.util.ArrayDeque<>();
    byte[] holder = "pid=12345 host=vm jvm=12345@vm\n".substring(0, 28).concat("\n")
        .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    int[] next = {0};
    CommitTarget withLock = new CommitTarget() {
      @Override
      public void commit() throws Exception {
        int i = order[next[0]++ % n];
        java.nio.channels.FileChannel lockChannel = java.nio.channels.FileChannel.open(
            locked.resolve(String.format(Locale.ROOT, "l%07d", i)),
            java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE);
        try (java.nio.channels.FileLock l = lockChannel.lock()) {
          lockChannel.write(java.nio.ByteBuffer.wrap(holder), 0);
          lockedFloor.commit(); // not the same file index as i: the cost is the same
        }
        kept.add(lockChannel);
        if (kept.size() > LedgerOptions.DEFAULT_OPEN_WRITER_LIMIT) {
          try (java.nio.channels.FileChannel c = kept.poll()) {
            c.truncate(0);
          }
        }
      }

      @Override
      public void close() {}
    };
    java.util.List<Turns.Slice> slices = java.util.List.of(Turns.of(plain), Turns.of(withLock));
    for (int round = 0; round < 3; round++) {
      double[] rates = Turns.rates(slices, millis / 3);
      System.out.printf(Locale.ROOT, "round %d: floor %.0f/s, floor with a lock file %.0f/s,"
          + " ratio %.2f; load %s%n", round, rates[0], rates[1], rates[1] / rates[0],
          Files.readString(Path.of("/proc/loadavg")).trim());
    }
  }

  private static final long[] REVISIONS = new long[1 << 20];

  private static void commitNext(FileLedgerStore store, int i) {
    Ledger<Workload.BenchState> ledger = store.ledger(name(i), Workload.BenchState.class);
    long r = REVISIONS[i] != 0 ? REVISIONS[i] : 1; // untouched since setup
    REVISIONS[i] = ledger.commit(r, Workload.state(r + 1), Workload.event(r + 1)).revision();
  }

  private static void warmUp(FileLedgerStore store) {
    Ledger<Workload.BenchState> w = store.ledger("warm-up", Workload.BenchState.class);
    long r = w.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
    for (int j = 0; j < 200; j++) {
      r = w.commit(r, Workload.state(r + 1), Workload.event(r + 1)).revision();
    }
  }

  private record Measure(Path dir, String what, long wall, long cpu) {
    void stop(int k) throws Exception {
      long wallNanos = System.nanoTime() - wall;
      long cpuNanos = THREADS.getCurrentThreadCpuTime() - cpu;
      System.out.printf(Locale.ROOT, "%s: %d, %.1f us wall and %.1f us CPU each, %.0f/s;"
          + " load %s%n", what, k, wallNanos / 1e3 / k, cpuNanos / 1e3 / k, k * 1e9 / wallNanos,
          Files.readString(Path.of("/proc/loadavg")).trim());
      System.out.flush();
      await(dir.resolve("end"));
    }
  }

  private static Measure start(Path dir, String what) throws Exception {
    System.out.println("TID " + Files.readSymbolicLink(Path.of("/proc/thread-self"))
        .getFileName());
    System.out.flush();
    await(dir.resolve("go"));
    return new Measure(dir, what, System.nanoTime(), THREADS.getCurrentThreadCpuTime());
  }

  private static void await(Path file) throws InterruptedException {
    if (!Boolean.getBoolean("probe.wait")) {
      return;
    }
    while (!Files.exists(file)) {
      Thread.sleep(20);
    }
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "l%07d", i);
  }
}
