package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Group commit under power cuts and I/O errors: threads of one store race {@code update}s on
 * one ledger, so that records are written while earlier ones wait for their force and one
 * force covers several commits; the n-th write, force, move, create or truncate cuts the
 * power (or fails), for n = 1, 2, ... until the threads finish. After each fault the reopened
 * store holds every acknowledged update at the revision it was acknowledged with, a gapless
 * journal of whole commits, and replays every acknowledged command. Which operation is the
 * n-th depends on the scheduler; the seed fixes what a cut keeps. The loops are
 * {@link FaultLoop}s.
 */
@ExtendWith(SeedExtension.class)
class GroupCommitFaultTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);
  private static final int THREADS = 4;
  private static final int UPDATES = 4 + SCALE;

  @TempDir
  Path diskTmp;

  /** Memory-backed scratch when there is one (see FaultInjectionTest). */
  Path tmp;

  @BeforeEach
  void chooseScratch() throws IOException {
    Path shm = Path.of("/dev/shm");
    tmp = Files.isDirectory(shm) && Files.isWritable(shm)
        ? Files.createTempDirectory(shm, "ledger-group-faults-") : diskTmp;
  }

  @AfterEach
  void dropScratch() throws IOException {
    if (!tmp.equals(diskTmp)) {
      try (Stream<Path> all = Files.walk(tmp)) {
        for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** The ledger's state: how many updates it took. */
  record Counter(int value, String pad) {}

  private static LedgerOptions options() {
    return LedgerOptions.defaults()
        .withCheckpointInterval(5)
        .withSegmentBytes(4096)
        .withUpdateRetry(1000, Duration.ZERO);
  }

  private static EventDraft draft(int thread, int k) {
    return EventDraft.of("inc", Map.of("thread", thread, "k", k))
        .withCommandId("t" + thread + "-" + k);
  }

  /** Acknowledged updates: "thread-k" to the revision it was acknowledged with. */
  private final Map<String, Long> acked = new ConcurrentHashMap<>();

  /** Threads race their updates until done or failed; returns what the threads threw. */
  private List<LedgerException> race(Ledger<Counter> ledger) throws InterruptedException {
    acked.clear();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    List<LedgerException> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      int thread = t;
      threads.add(new Thread(() -> {
        try {
          start.await();
          for (int k = 0; k < UPDATES; k++) {
            int kk = k;
            Versioned<Counter> after = ledger.update(c -> Change.to(
                new Counter(c.value() + 1, c.pad()), draft(thread, kk)));
            acked.put(thread + "-" + kk, after.revision());
          }
        } catch (LedgerException e) {
          failures.add(e);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }, "group-fault-" + t));
    }
    threads.forEach(Thread::start);
    start.countDown();
    for (Thread t : threads) {
      t.join(Duration.ofMinutes(2).toMillis());
      assertThat(t.isAlive()).as("%s hangs", t.getName()).isFalse();
    }
    return failures;
  }

  private void verify(Path root, String context) {
    try (FileLedgerStore store = FileLedgerStore.open(root, options())) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      Versioned<Counter> loaded = ledger.load();
      long revision = loaded.revision();
      assertThat(loaded.state().value()).as(context).isEqualTo((int) revision);
      List<Event> all;
      try (Stream<Event> events = ledger.replay(Cursor.START)) {
        all = events.toList();
      }
      assertThat(all).as(context).hasSize((int) revision);
      for (int i = 0; i < all.size(); i++) {
        assertThat(all.get(i).sequence()).as(context).isEqualTo(i + 1);
        assertThat(all.get(i).revision()).as(context).isEqualTo(i + 1);
      }
      for (Map.Entry<String, Long> ack : acked.entrySet()) {
        long at = ack.getValue();
        assertThat(at).as("%s: acknowledged %s at %s, found revision %s", context,
            ack.getKey(), at, revision).isLessThanOrEqualTo(revision);
        Event e = all.get((int) at - 1);
        assertThat(e.payload().get("thread").asInt() + "-" + e.payload().get("k").asInt())
            .as("%s: revision %s", context, at).isEqualTo(ack.getKey());
        String[] parts = ack.getKey().split("-");
        CommitResult again = ledger.commit(at - 1, new Counter((int) at, "p"),
            draft(Integer.parseInt(parts[0]), Integer.parseInt(parts[1])));
        assertThat(again.replayed()).as("%s: command %s", context, ack.getKey()).isTrue();
        assertThat(again.revision()).as(context).isEqualTo(at);
      }
      CommitResult next = ledger.commit(revision, new Counter((int) revision + 1, "p"));
      assertThat(next.revision()).as(context).isEqualTo(revision + 1);
    }
  }

  /** Records of the last, fault-free run written while earlier ones were unforced. */
  private long grouped;

  private static long groupedRecords(Path store) throws IOException {
    try (Stream<Path> files = Files.walk(store.resolve("ledgers"))) {
      long count = 0;
      for (Path p : files.filter(f -> f.toString().endsWith(".jsonl")).toList()) {
        for (String line : Files.readAllLines(p)) {
          count += line.contains("\"forcedThrough\"") ? 1 : 0;
        }
      }
      return count;
    }
  }

  /** The store a run's setup opens and its code races on; closed at the end of the code. */
  private FileLedgerStore store;
  private Ledger<Counter> ledger;

  /** The setup of a run: a store with one commit, before any fault. */
  private void open(Path root) {
    store = FileLedgerStore.open(root.resolve("store"), options());
    ledger = store.ledger("root-1", Counter.class);
    ledger.commit(Ledger.NO_REVISION, new Counter(1, "p".repeat(300)),
        EventDraft.of("init", Map.of()));
  }

  /**
   * The code under the fault: the threads race, then the store closes; a store failure of
   * either is thrown (the loop hands it to the check). A run without one must have had every
   * update acknowledged; the last such run's groups are counted.
   */
  private void raceAndClose(Path root) throws Exception {
    List<LedgerException> failures = new ArrayList<>(race(ledger));
    try {
      store.close();
    } catch (LedgerException e) {
      failures.add(e);
    }
    if (!failures.isEmpty()) {
      LedgerException first = failures.get(0);
      failures.stream().skip(1).forEach(first::addSuppressed);
      throw first;
    }
    assertThat(acked).as("a run that failed nothing").hasSize(THREADS * UPDATES);
    grouped = groupedRecords(FaultyFileSystem.real(root.resolve("store")));
  }

  private int loop(Op op, Random random, Persistence ioError) throws IOException {
    FaultLoop loop = ioError == null ? FaultLoop.powerCutAt(op).withRandom(random)
        : FaultLoop.ioErrorAt(op, ioError);
    return loop.withSetup(this::open).withMaxRuns(2000).run(
        Files.createDirectories(tmp.resolve(op + "-" + ioError)), this::raceAndClose,
        (root, fault) -> {
          fault.thrown().ifPresent(e -> assertThat(e).as(fault.toString())
              .isInstanceOf(LedgerException.class));
          verify(root.resolve("store"), fault + ", " + acked.size() + " acknowledged");
        });
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "TRUNCATE"})
  void powerCutWhileThreadsShareForcesLosesNothingAcknowledged(Op op, TestSeed seed)
      throws Exception {
    int cuts = loop(op, seed.random(), null);
    assertThat(cuts).isPositive();
    System.out.printf("group commit power-cut loop %s: %d cuts, %d of %d records of the last"
        + " run written in a group (%s)%n", op, cuts, grouped, THREADS * UPDATES + 1, seed);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE"})
  void ioErrorWhileThreadsShareForcesLosesNothingAcknowledged(Op op, TestSeed seed)
      throws Exception {
    int faults = loop(op, seed.random(), Persistence.PERSISTENT);
    System.out.printf("group commit I/O error loop %s: %d faults, %d of %d records of the last"
        + " run written in a group%n", op, faults, grouped, THREADS * UPDATES + 1);
  }
}
