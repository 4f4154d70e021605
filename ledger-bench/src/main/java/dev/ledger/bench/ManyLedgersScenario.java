package dev.ledger.bench;

import dev.ledger.core.Durability;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Stream;

/**
 * Scenario 9: many ledgers in one store (issue 13, point 3). Every ledger is created in a
 * random order, then committed {@link #COMMITS_EACH} − 1 more times in another random order;
 * the first of those commits run in timed turns against commits on one hot ledger of the
 * same store (same call, same state and event), the rest untimed. The untimed commits (the
 * creations and those after the timed rounds) run without force, on the same store reopened
 * with {@code UNSAFE_NO_SYNC}; the timed ones with the default durability. Throughout, the process's
 * open descriptors ({@code /proc/self/fd}) are sampled every 64 commits and the preallocated
 * zero bytes of every journal are summed after each phase. The store runs with the default
 * open writer limit.
 *
 * <p>The setup (the creations, and as many one-record files for the floor) is made durable
 * with {@code sync} before the timed rounds, as forced commits would have left it: otherwise
 * each timed commit that changes a file's size (a file-system journal commit) waits for the
 * write-back of the setup's data, which a commit into preallocated space (the hot ledger's)
 * does not. A third contender in the same turns is the floor of a commit on a ledger whose
 * writer is not open ({@link RandomFileFloor}: open one of as many random files, append, force,
 * close).
 *
 * <p>Before the timed rounds, {@link #WARM_UP_COMMITS} such commits run untimed on ledgers of
 * a store of their own (created as these are, made durable with them, then committed once
 * each by a forcing store), so that the path of a commit on a ledger whose writer is not open
 * (reading its checkpoint, scanning its journal end, locking it, parking another writer) is
 * compiled before it is timed, as the hot ledger's path and the floor's are after a round:
 * that path runs only on such commits, and measured in one JVM after the setup, on two shared
 * cores, such a commit's thread CPU was 1,190 us over the first thousand and 735 us over the
 * fourth and the fifth (the previous warm-up, 3,000 commits on the timed ledgers themselves,
 * was capped at a third of them and still left the rounds measuring a path being compiled).
 * The timed store's ledgers are untouched by it: every timed commit is the first on its
 * ledger since that store opened. The ledgers' names are made before the rounds, so a timed
 * commit pays for the ledger, not for formatting its name.
 */
final class ManyLedgersScenario {
  static final String NAME = "9. Many ledgers";
  /** Commits per ledger, the first creating it. */
  static final int COMMITS_EACH = 3;
  /**
   * Untimed commits on ledgers whose writer is not open, on as many ledgers of a store of
   * their own, before the timed rounds.
   */
  static final int WARM_UP_COMMITS = 10_000;
  /** What one open writer may keep preallocated: 128 KiB, rounded up to a page. */
  private static final long WINDOW = 128 * 1024 + 4096;
  private static final Path FD_DIR = Path.of("/proc/self/fd");

  private final long[] revisions;
  private final String[] names;
  private int baseline;
  private int maxAbove;
  private long commits;

  private ManyLedgersScenario(int count) {
    revisions = new long[count];
    names = new String[count];
    for (int i = 0; i < count; i++) {
      names[i] = name(i);
    }
  }

  static void run(BenchConfig config, Report report) throws Exception {
    int count = config.manyLedgers();
    int bound = LedgerOptions.DEFAULT_OPEN_WRITER_LIMIT;
    Path base = config.dir().resolve("s9");
    Random random = new Random(9);
    ManyLedgersScenario s = new ManyLedgersScenario(count);
    // The baseline is taken once the library's classes (and their jars) are loaded.
    try (FileLedgerStore warmUp = FileLedgerStore.open(config.dir().resolve("s9-warm-up"))) {
      warmUp.ledger("w", Workload.BenchState.class).commit(Ledger.NO_REVISION, Workload.state(0),
          Workload.event(0));
    }
    s.baseline = descriptors();
    Stats random1 = report.stats(NAME, String.format(Locale.ROOT,
        "commit on a random one of %,d ledgers", count), "commits/s");
    Stats hot = report.stats(NAME, "commit on one hot ledger, same store", "commits/s");
    Stats create = report.stats(NAME, "first commit (creation) of each ledger, random order, "
        + "setup without force", "commits/s");
    Stats rest = report.stats(NAME, "later untimed commits, random order, without force",
        "commits/s");
    int[] created = permutation(count, random);
    int[] order = new int[count * (COMMITS_EACH - 1)];
    for (int pass = 0; pass < COMMITS_EACH - 1; pass++) {
      System.arraycopy(permutation(count, random), 0, order, pass * count, count);
    }
    int[] next = {0};
    long zeros = 0;
    // Setup: the creating commits and those after the timed rounds are not measured against
    // anything, so they run without forces (UNSAFE_NO_SYNC): with a force each, 100,000
    // ledgers took hours on two shared cores. The store, its open writer limit, descriptors
    // and preallocation are the same; only the timed rounds need durable commits.
    LedgerOptions setup = LedgerOptions.defaults().withDurability(Durability.UNSAFE_NO_SYNC);
    try (FileLedgerStore store = FileLedgerStore.open(base, setup)) {
      long t0 = System.nanoTime();
      for (int k = 0; k < created.length; k++) {
        s.commit(store, created[k]);
        if (k % 10_000 == 9_999) {
          progress("created " + (k + 1));
        }
      }
      create.add(count * 1e9 / (System.nanoTime() - t0));
      zeros = Math.max(zeros, preallocatedZeros(base));
    }
    // The warm-up's ledgers (see the class comment), created as the timed ones were.
    int warmUp = Math.min(WARM_UP_COMMITS, count);
    Path warmBase = config.dir().resolve("s9-warm-up-ledgers");
    ManyLedgersScenario w = new ManyLedgersScenario(warmUp);
    try (FileLedgerStore store = FileLedgerStore.open(warmBase, setup)) {
      for (int k = 0; k < warmUp; k++) {
        w.commit(store, k);
      }
    }
    int[] recordBytes = recordBytes(config.dir().resolve("s9-record-size"), setup);
    RandomFileFloor floor = RandomFileFloor.create(config.dir().resolve("s9-floor"), count,
        recordBytes[0], recordBytes[1], random);
    String flushed = flushSetup();
    Stats floorStats = report.stats(NAME, String.format(Locale.ROOT,
        "floor: open a random one of %,d files (each one %,d-byte record), append %,d bytes, "
        + "fdatasync, close", count, recordBytes[0], recordBytes[1]), "commits/s");
    long heapWithLedgers;
    // Warm-up of the path the timed random commits take (see the class comment): forced, as
    // they are, so that the code is compiled for the path they run, each on a ledger of the
    // warm-up's store whose writer is not open, in a random order.
    try (FileLedgerStore store = FileLedgerStore.open(warmBase, LedgerOptions.defaults())) {
      for (int k : permutation(warmUp, random)) {
        w.commit(store, k);
      }
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, LedgerOptions.defaults())) {
      Ledger<Workload.BenchState> hotLedger = store.ledger("hot", Workload.BenchState.class);
      long[] hotRevision = {hotLedger.commit(Ledger.NO_REVISION, Workload.state(0)).revision()};
      List<Turns.Slice> slices = new ArrayList<>();
      slices.add(millis -> {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long n = 0;
        // Each commit is the first on its ledger since the store reopened: when the order runs
        // out (a fast disk), the turn ends and so does the timing (the round is dropped).
        while (next[0] < order.length) {
          s.commit(store, order[next[0]++]);
          n++;
          if (System.nanoTime() >= deadline) {
            break;
          }
        }
        return n;
      });
      slices.add(millis -> {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        long n = 0;
        do {
          hotRevision[0] = hotLedger.commit(hotRevision[0], Workload.state(hotRevision[0]),
              Workload.event(hotRevision[0])).revision();
          s.sample();
          n++;
        } while (System.nanoTime() < deadline);
        return n;
      });
      slices.add(Turns.of(floor));
      for (int round = 0; round <= config.rounds() && next[0] < order.length; round++) {
        double[] rates = Turns.rates(slices, config.roundMillis());
        if (round > 0 && next[0] < order.length) {
          random1.add(rates[0]);
          hot.add(rates[1]);
          floorStats.add(rates[2]);
        }
      }
      zeros = Math.max(zeros, preallocatedZeros(base));
      heapWithLedgers = usedHeap();
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, setup)) {
      int from = next[0];
      long t0 = System.nanoTime();
      while (next[0] < order.length) {
        s.commit(store, order[next[0]++]);
      }
      if (next[0] > from) {
        rest.add((next[0] - from) * 1e9 / (System.nanoTime() - t0));
      }
      zeros = Math.max(zeros, preallocatedZeros(base));
      for (int i = 0; i < count; i++) {
        if (s.revisions[i] != COMMITS_EACH) {
          throw new IllegalStateException("ledger " + i + " at revision " + s.revisions[i]);
        }
      }
    }
    Stats fds = report.stats(NAME, String.format(Locale.ROOT,
        "open descriptors above the baseline, max over %,d commits (bound %d)", s.commits,
        bound), "descriptors");
    fds.add(s.maxAbove);
    Stats zeroStats = report.stats(NAME, "preallocated zero bytes across all journals, max",
        "bytes");
    zeroStats.add(zeros);
    Stats heap = report.stats(NAME, String.format(Locale.ROOT,
        "heap in use after GC, store open after commits to all %,d ledgers", count), "MiB");
    heap.add(heapWithLedgers / (1024.0 * 1024.0));
    report.ratio(NAME, "random ledger / hot ledger commits/s", random1, hot,
        Report.Goal.AT_LEAST, 0.5);
    report.ratio(NAME, "floor on random files / hot ledger commits/s (what the disk allows "
        + "the ratio above)", floorStats, hot, Report.Goal.REPORT, 0);
    report.ratio(NAME, "random ledger / floor on random files commits/s", random1, floorStats,
        Report.Goal.REPORT, 0);
    report.ratio(NAME, "descriptors above baseline / (2 x bound + 16)",
        s.maxAbove / (2.0 * bound + 16), Report.Goal.AT_MOST, 1.0, "");
    report.ratio(NAME, "preallocated zeros / (bound x window)", zeros / (double) (bound * WINDOW),
        Report.Goal.AT_MOST, 1.0, "");
    report.note(String.format(Locale.ROOT, "Scenario 9: %,d ledgers x %d commits, default open "
        + "writer limit %d; descriptors counted in /proc/self/fd. The creating commits and "
        + "those after the timed rounds run without force (setup), then the setup is made "
        + "durable (%s); then %,d forced commits on as many ledgers of another store, whose "
        + "writer is not open, warm that path up untimed; the timed rounds force every commit, "
        + "each the first on its ledger since the store opened.",
        count, COMMITS_EACH, bound, flushed, warmUp));
  }

  /**
   * Writes the setup's dirty pages back with {@code sync} (the ledgers and the floor's files:
   * hundreds of megabytes at 100,000 ledgers), so that the timed commits do not pay for them;
   * says how, and how long it took.
   */
  private static String flushSetup() throws IOException, InterruptedException {
    long t0 = System.nanoTime();
    try {
      Process sync = new ProcessBuilder("sync").inheritIO().start();
      int code = sync.waitFor();
      String how = code == 0 ? "sync" : "sync failed with exit code " + code;
      return String.format(Locale.ROOT, "%s, %.1f s", how, (System.nanoTime() - t0) / 1e9);
    } catch (IOException e) {
      return "no sync command: the timed commits share the disk with the setup's write-back";
    }
  }

  /**
   * The bytes of a ledger's first and second commit records in this scenario, read from a
   * scratch store given the same two commits (a store without force writes no zeros), so that
   * the floor appends what a ledger appends.
   */
  static int[] recordBytes(Path dir, LedgerOptions setup) throws IOException {
    Path segment;
    long first;
    long second;
    try (FileLedgerStore store = FileLedgerStore.open(dir, setup)) {
      Ledger<Workload.BenchState> ledger = store.ledger(name(0), Workload.BenchState.class);
      long r = ledger.commit(Ledger.NO_REVISION, Workload.state(1), Workload.event(1))
          .revision();
      try (Stream<Path> files = Files.walk(dir)) {
        segment = files.filter(p -> p.toString().endsWith(".jsonl")).findFirst().orElseThrow();
      }
      first = Files.size(segment);
      ledger.commit(r, Workload.state(2), Workload.event(2));
      second = Files.size(segment) - first;
    }
    return new int[] {Math.toIntExact(first), Math.toIntExact(second)};
  }

  private void commit(FileLedgerStore store, int i) throws IOException {
    long counter = revisions[i] + 1;
    revisions[i] = store.ledger(names[i], Workload.BenchState.class).commit(revisions[i],
        Workload.state(counter), Workload.event(counter)).revision();
    sample();
  }

  private static String name(int i) {
    return String.format(Locale.ROOT, "l%07d", i);
  }

  private static long usedHeap() {
    Runtime rt = Runtime.getRuntime();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return rt.totalMemory() - rt.freeMemory();
  }

  private static void progress(String what) {
    System.err.println("[bench scenario 9] " + what);
  }

  private void sample() throws IOException {
    if (commits++ % 64 == 0) {
      maxAbove = Math.max(maxAbove, descriptors() - baseline);
    }
  }

  /** 0 to n - 1 in a random order (Fisher-Yates). */
  static int[] permutation(int n, Random random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }

  private static int descriptors() throws IOException {
    if (!Files.isDirectory(FD_DIR)) {
      return 0; // not Linux: the row then shows 0, and the note says where it was counted
    }
    try (Stream<Path> fds = Files.list(FD_DIR)) {
      return (int) fds.count();
    }
  }

  /** The zero bytes at the ends of every journal segment of the store. */
  private static long preallocatedZeros(Path base) throws IOException {
    long zeros = 0;
    List<Path> segments;
    try (Stream<Path> files = Files.walk(base.resolve("ledgers"))) {
      segments = files.filter(p -> p.toString().endsWith(".jsonl")).toList();
    }
    ByteBuffer page = ByteBuffer.allocate(4096);
    for (Path segment : segments) {
      try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
        long end = channel.size();
        scan:
        while (end > 0) {
          long from = Math.max(0, end - page.capacity());
          page.clear().limit((int) (end - from));
          while (page.hasRemaining() && channel.read(page, from + page.position()) > 0) {
            // pread loop
          }
          for (int i = page.position() - 1; i >= 0; i--) {
            if (page.get(i) != 0) {
              break scan;
            }
            zeros++;
          }
          end = from;
        }
      }
    }
    return zeros;
  }
}
