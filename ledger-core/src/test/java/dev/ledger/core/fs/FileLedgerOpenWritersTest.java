package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.ledger.core.Change;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 13, point 3: a file store keeps at most {@link LedgerOptions#openWriterLimit()}
 * ledgers open for writing. Idle ones are parked: their journal and lock-file channels
 * closed, their preallocated zeros cut; their next commit reopens them. Measured with the
 * process's real descriptor table ({@code /proc/self/fd}) and the journals' real bytes.
 */
@ExtendWith(SeedExtension.class)
class FileLedgerOpenWritersTest {
  private static final int BOUND = 4;
  /** What one ledger may keep preallocated: the window, rounded up to a page (see preallocate). */
  private static final long WINDOW = JournalFiles.PREALLOCATE_BYTES + 4096;

  @TempDir
  Path dir;

  private static LedgerOptions options() {
    return LedgerOptions.defaults().withOpenWriterLimit(BOUND).withCheckpointInterval(3);
  }

  @Test
  void ahundredLedgersCommittedInRandomOrderKeepDescriptorsAndZerosWithinTheBound(
      TestSeed seed) throws Exception {
    assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"),
        "descriptors are counted through /proc/self/fd, which Linux has");
    assertThat(Path.of("/proc/self/fd")).as("Linux without /proc/self/fd").isDirectory();
    int ledgers = 100;
    int commitsEach = 5;
    Random random = seed.random();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < ledgers; i++) {
      for (int c = 0; c < commitsEach; c++) {
        order.add(i);
      }
    }
    Collections.shuffle(order, random);
    Path base = dir.resolve("store");
    int baseline = openDescriptors();
    int maxAbove = 0;
    long maxZeros = 0;
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      int step = 0;
      for (int i : order) {
        Ledger<Counter> ledger = store.ledger(root(i), Counter.class);
        if (ledger.find().isEmpty()) {
          ledger.commit(Ledger.NO_REVISION, new Counter(0));
        }
        ledger.update(c -> Change.to(c.increment(), Counter.incremented("w", (int) c.count())));
        maxAbove = Math.max(maxAbove, openDescriptors() - baseline);
        if (++step % 25 == 0) {
          maxZeros = Math.max(maxZeros, preallocatedZeros(base));
        }
      }
      maxZeros = Math.max(maxZeros, preallocatedZeros(base));
      assertThat(maxAbove).as("descriptors above the baseline of %d (%s)", baseline, seed)
          .isLessThanOrEqualTo(2 * BOUND + 16);
      assertThat(maxZeros).as("preallocated zero bytes across journals (%s)", seed)
          .isLessThanOrEqualTo(BOUND * WINDOW);
      assertThat(maxZeros).as("the open writers still preallocate").isPositive();
    }
    assertThat(preallocatedZeros(base)).as("a closed store leaves no zeros").isZero();
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      for (int i = 0; i < ledgers; i++) {
        Counter.assertLandedExactlyOnce(store.ledger(root(i), Counter.class), commitsEach);
      }
      assertThat(store.verify().clean()).as("verify after reopen").isTrue();
    }
    System.out.printf("open writers: %d ledgers, bound %d: at most %d descriptors above the "
        + "baseline, %d preallocated bytes (%s)%n", ledgers, BOUND, maxAbove, maxZeros, seed);
  }

  @Test
  void threadsCommittingManyLedgersRaceTheParkingAndLoseNothing(TestSeed seed) throws Exception {
    int ledgers = 12;
    int threads = 4;
    int updatesEach = 60 * Integer.getInteger("ledger.torture.scale", 1);
    Path base = dir.resolve("store");
    int[][] counts = new int[threads][ledgers];
    try (FileLedgerStore store = FileLedgerStore.open(base, options().withOpenWriterLimit(2))) {
      for (int i = 0; i < ledgers; i++) {
        store.ledger(root(i), Counter.class).commit(Ledger.NO_REVISION, new Counter(0));
      }
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          Random random = seed.derive("thread " + t).random();
          done.add(pool.submit(() -> {
            for (int u = 0; u < updatesEach; u++) {
              int i = random.nextInt(ledgers);
              int step = u;
              store.ledger(root(i), Counter.class).update(c -> Change.to(c.increment(),
                  Counter.incremented("t" + thread, step)));
              counts[thread][i]++;
            }
            return null;
          }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdownNow();
      }
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      for (int i = 0; i < ledgers; i++) {
        int total = 0;
        for (int t = 0; t < threads; t++) {
          total += counts[t][i];
        }
        Counter.assertLandedExactlyOnce(store.ledger(root(i), Counter.class), total);
      }
      assertThat(store.verify().clean()).as("verify (%s)", seed).isTrue();
    }
  }

  @Test
  void aParkedLedgerCatchesUpWithWhatAnotherStoreCommittedMeanwhile() {
    Path base = dir.resolve("store");
    try (FileLedgerStore first = FileLedgerStore.open(base, options().withOpenWriterLimit(1));
        FileLedgerStore second = FileLedgerStore.open(base, options())) {
      Ledger<Counter> a = first.ledger("a", Counter.class);
      a.commit(Ledger.NO_REVISION, new Counter(0));
      a.update(c -> Change.to(c.increment(), Counter.incremented("first", 0)));
      // Committing "b" parks "a" in the first store: zeros cut, channels closed.
      first.ledger("b", Counter.class).commit(Ledger.NO_REVISION, new Counter(0));
      Ledger<Counter> viaSecond = second.ledger("a", Counter.class);
      for (int step = 0; step < 5; step++) {
        int s = step;
        viaSecond.update(c -> Change.to(c.increment(), Counter.incremented("second", s)));
      }
      // The first store's parked tail is behind: its next commit must see the five.
      assertThatThrownBy(() -> a.commit(2, new Counter(99)))
          .isInstanceOf(dev.ledger.core.RevisionConflictException.class);
      a.update(c -> Change.to(c.increment(), Counter.incremented("first", 1)));
      Counter.assertLandedExactlyOnce(a, 7);
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      assertThat(store.verify().clean()).isTrue();
    }
  }

  @Test
  void aParkedLedgerKeepsItsHolderLineSoItsNextCommitLeavesTheLockFileAlone() throws Exception {
    Path base = dir.resolve("store");
    Path lockA = base.resolve("ledgers").resolve("a").resolve(".lock");
    Path lockB = base.resolve("ledgers").resolve("b").resolve(".lock");
    String pid = "pid=" + ProcessHandle.current().pid() + " ";
    try (FileLedgerStore store = FileLedgerStore.open(base, options().withOpenWriterLimit(1))) {
      Ledger<Counter> a = store.ledger("a", Counter.class);
      a.commit(Ledger.NO_REVISION, new Counter(0));
      // Committing "b" parks "a": its channels are closed, its holder line stays.
      store.ledger("b", Counter.class).commit(Ledger.NO_REVISION, new Counter(0));
      String line = Files.readString(lockA);
      assertThat(line).as("parked ledger's lock file").startsWith(pid).endsWith("\n");
      java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(lockA);
      a.update(c -> Change.to(c.increment(), Counter.incremented("w", 0)));
      assertThat(Files.readString(lockA)).isEqualTo(line);
      assertThat(Files.getLastModifiedTime(lockA)).as("lock file of a unparked ledger written")
          .isEqualTo(modified);
      assertThat(Files.readString(lockB)).as("lock file of b, parked by a").startsWith(pid);
      Counter.assertLandedExactlyOnce(a, 1);
    }
    assertThat(Files.size(lockA)).as("lock file of a once the store closed").isZero();
    assertThat(Files.size(lockB)).as("lock file of b once the store closed").isZero();
  }

  /**
   * Another process deleted the parked ledger and created it again, and the new lock file got
   * the removed one's identity (here: the lock file is kept and every other file replaced by
   * another ledger's of the same revision and the same sizes, which is what the parked writer
   * sees when the file system reuses the inode). The writer must read the new ledger, not
   * append a patch computed against the state it cached of the old one.
   */
  @Test
  void aParkedLedgerDeletedAndCreatedAgainElsewhereIsReadAfreshEvenIfItsLockFileLooksTheSame()
      throws IOException {
    java.time.Clock clock = java.time.Clock.fixed(java.time.Instant.parse(
        "2026-12-01T10:00:00.123Z"), java.time.ZoneOffset.UTC);
    LedgerOptions fixed = options().withOpenWriterLimit(1).withClock(clock);
    Path base = dir.resolve("store");
    Path donor = dir.resolve("donor");
    com.fasterxml.jackson.databind.node.JsonNodeFactory json =
        com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    try (FileLedgerStore other = FileLedgerStore.open(donor, fixed)) {
      Ledger<com.fasterxml.jackson.databind.JsonNode> a =
          other.ledger("a", com.fasterxml.jackson.databind.JsonNode.class);
      for (int r = 1; r <= 2; r++) {
        a.commit(r - 1, json.objectNode().put("owner", "donor!").put("n", r));
      }
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, fixed)) {
      Ledger<com.fasterxml.jackson.databind.JsonNode> a =
          store.ledger("a", com.fasterxml.jackson.databind.JsonNode.class);
      for (int r = 1; r <= 2; r++) {
        a.commit(r - 1, json.objectNode().put("owner", "parent").put("n", r));
      }
      // Committing "b" parks "a": its channels are closed, its tail and state stay cached.
      store.ledger("b", Counter.class).commit(Ledger.NO_REVISION, new Counter(0));
      Path ledger = base.resolve("ledgers").resolve("a");
      Path replacement = donor.resolve("ledgers").resolve("a");
      try (Stream<Path> files = Files.walk(replacement)) {
        for (Path source : (Iterable<Path>) files::iterator) {
          Path target = ledger.resolve(replacement.relativize(source).toString());
          if (Files.isDirectory(source)) {
            Files.createDirectories(target);
          } else if (!source.getFileName().toString().equals(".lock")) {
            if (source.getFileName().toString().endsWith(".jsonl")) {
              assertThat(Files.size(target)).as("journal segment %s", target)
                  .isEqualTo(Files.size(source));
            }
            Files.copy(source, target, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
          }
        }
      }
      a.commit(2, json.objectNode().put("owner", "parent").put("n", 3));
    }
    try (FileLedgerStore reopened = FileLedgerStore.openReadOnly(base)) {
      assertThat(reopened.ledger("a", com.fasterxml.jackson.databind.JsonNode.class).load()
          .state()).isEqualTo(json.objectNode().put("owner", "parent").put("n", 3));
      dev.ledger.core.VerifyReport report = reopened.verify();
      assertThat(report.clean()).as("%s", report.findings()).isTrue();
    }
  }

  @Test
  void theLimitIsValidated() {
    assertThatThrownBy(() -> LedgerOptions.defaults().withOpenWriterLimit(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("openWriterLimit must be at least 1: 0");
    assertThat(LedgerOptions.defaults().openWriterLimit())
        .isEqualTo(LedgerOptions.DEFAULT_OPEN_WRITER_LIMIT);
  }

  private static String root(int i) {
    return String.format(Locale.ROOT, "ledger-%03d", i);
  }

  private static int openDescriptors() throws IOException {
    try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
      return (int) fds.count();
    }
  }

  /** The zero bytes at the ends of every journal segment under {@code base}. */
  static long preallocatedZeros(Path base) throws IOException {
    List<Path> segments;
    try (Stream<Path> files = Files.walk(base.resolve("ledgers"))) {
      segments = files.filter(p -> p.toString().endsWith(".jsonl")).toList();
    }
    long zeros = 0;
    for (Path segment : segments) {
      zeros += trailingZeros(segment);
    }
    return zeros;
  }

  private static long trailingZeros(Path segment) throws IOException {
    try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.READ)) {
      long size = channel.size();
      long zeros = 0;
      ByteBuffer page = ByteBuffer.allocate(4096);
      for (long end = size; end > 0; ) {
        long from = Math.max(0, end - page.capacity());
        page.clear().limit((int) (end - from));
        while (page.hasRemaining() && channel.read(page, from + page.position()) > 0) {
          // pread loop
        }
        for (int i = page.position() - 1; i >= 0; i--) {
          if (page.get(i) != 0) {
            return zeros;
          }
          zeros++;
        }
        end = from;
      }
      return zeros;
    }
  }
}
