package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.AckingCommitter.Tick;
import dev.ledger.testing.base.ChildJvm;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delete, archive and backup against real SIGKILLs: a child JVM runs the operation over a
 * store of {@value #LEDGERS} ledgers ({@link RemovalChild}) and is killed at a seeded random
 * moment; then the store reopens, verifies clean, and every ledger is whole or gone (an
 * acknowledged delete: gone; an acknowledged archive: gone here and whole in its archive;
 * never neither), leftovers are removed by the open, and a backup directory is either
 * complete and verifying or has no {@code store.json}.
 *
 * <p>Kills per test: 5 times {@code ledger.torture.scale} (default 1).
 */
@ExtendWith(SeedExtension.class)
class RemovalCrashTest {
  private static final int LEDGERS = 20;
  private static final int COMMITS = 10;
  private static final int KILLS = 5;
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  private static int kills() {
    return KILLS * Integer.getInteger("ledger.torture.scale", 1);
  }

  /** The store every round starts from, written once with durable commits. */
  private static Path template;

  @BeforeAll
  static void writeTemplate(@TempDir Path templates) {
    template = templates.resolve("template");
    try (FileLedgerStore store = FileLedgerStore.open(template, AckingCommitter.options())) {
      for (int i = 0; i < LEDGERS; i++) {
        Ledger<Tick> ledger = store.ledger("r-" + i, Tick.class);
        for (long r = 1; r <= COMMITS; r++) {
          ledger.commit(r - 1, AckingCommitter.state(r), AckingCommitter.events(r));
        }
      }
    }
  }

  /**
   * A round's store: a copy of the template ({@value #LEDGERS} ledgers of {@value #COMMITS}
   * commits), rather than the same {@code LEDGERS * COMMITS} forced commits again each round.
   * The child is killed, not the machine, so nothing depends on the copy being forced.
   */
  private static void prepare(Path base) throws IOException {
    try (Stream<Path> all = Files.walk(template)) {
      for (Path p : all.toList()) {
        Path copy = base.resolve(template.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(p, copy);
        }
      }
    }
  }

  /** Starts the child and kills it after {@code lines} lines of output plus a short delay. */
  private static List<String> runAndKill(Random random, int lines, String... args)
      throws InterruptedException {
    try (ChildJvm child = ChildJvm.start(RemovalChild.class, args)) {
      assertThat(child.awaitLines(l -> l.size() >= lines, DEADLINE))
          .as("%d lines from %s", lines, child.describe()).isTrue();
      LockSupport.parkNanos(random.nextInt((int) TimeUnit.MILLISECONDS.toNanos(4)));
      child.kill();
      // The lines the child flushed before it died may still be in the pipe: read to its end,
      // or the last step the child reported is missed and its effect looks unannounced.
      child.awaitLines(l -> false, DEADLINE);
      return child.lines();
    }
  }

  private static void assertWhole(LedgerStore store, String root, String context) {
    Ledger<Tick> ledger = store.ledger(root, Tick.class);
    assertThat(store.exists(root)).as("%s: %s exists", context, root).isTrue();
    assertThat(ledger.load().revision()).as("%s revision of %s", context, root)
        .isEqualTo(COMMITS);
    assertThat(ledger.load().state()).isEqualTo(AckingCommitter.state(COMMITS));
    assertThat(ledger.events(Cursor.START, 100).events()).hasSize(COMMITS);
    assertThat(ledger.command(AckingCommitter.commandId(COMMITS / 2))).isPresent();
  }

  private static void assertClean(FileLedgerStore store, String context) {
    VerifyReport report = store.verify();
    assertThat(report.clean()).as("%s: %s", context, report.findings()).isTrue();
  }

  @Test
  void killedDeleteLeavesEveryLedgerWholeOrGone(TestSeed seed) throws Exception {
    Random random = seed.random();
    int trashLeft = 0;
    int inFlightGone = 0;
    for (int round = 0; round < kills(); round++) {
      String context = "delete kill " + round + ", " + seed;
      Path base = dir.resolve("delete-" + round);
      prepare(base);
      List<String> lines = runAndKill(random, 1 + random.nextInt(2 * LEDGERS - 2), "delete",
          base.toString(), Integer.toString(LEDGERS), dir.toString());
      Set<String> deleted = after(lines, "DELETED ");
      String inFlight = inFlight(lines, "DELETING ", deleted);
      context += ", the child said " + lines.subList(Math.max(0, lines.size() - 4),
          lines.size());
      Path trash = base.resolve("ledgers").resolve(LedgerTrash.TRASH);
      if (!FileLedgerDeleteTest.listing(trash).isEmpty()) {
        trashLeft++;
      }
      context += ", ledgers " + FileLedgerDeleteTest.listing(base.resolve("ledgers"))
          + ", trash " + FileLedgerDeleteTest.listing(trash);
      try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
        assertThat(FileLedgerDeleteTest.listing(trash)).as("%s: trash after open", context)
            .isEmpty();
        assertClean(store, context);
        for (int i = 0; i < LEDGERS; i++) {
          String root = "r-" + i;
          if (deleted.contains(root)) {
            assertThat(store.exists(root)).as("%s: %s was deleted", context, root).isFalse();
          } else if (root.equals(inFlight) && !store.exists(root)) {
            inFlightGone++;
          } else {
            assertWhole(store, root, context);
          }
        }
      }
    }
    System.out.printf("delete kill loop: %d SIGKILLs, %d left trash for the next open, "
        + "%d caught a delete after its commit point (%s)%n", kills(), trashLeft,
        inFlightGone, seed);
  }

  @Test
  void killedArchiveLeavesEveryLedgerInItsStoreOrItsArchiveWhole(TestSeed seed)
      throws Exception {
    Random random = seed.random();
    int both = 0;
    int hidden = 0;
    for (int round = 0; round < kills(); round++) {
      String context = "archive kill " + round + ", " + seed;
      Path base = dir.resolve("archive-" + round);
      Path archives = dir.resolve("archives-" + round);
      prepare(base);
      List<String> lines = runAndKill(random, 1 + random.nextInt(2 * LEDGERS - 2), "archive",
          base.toString(), Integer.toString(LEDGERS), archives.toString());
      Set<String> archived = after(lines, "ARCHIVED ");
      String inFlight = inFlight(lines, "ARCHIVING ", archived);
      context += ", the child said " + lines.subList(Math.max(0, lines.size() - 4),
          lines.size());
      hidden += (int) FileLedgerDeleteTest.listing(archives).stream()
          .filter(n -> n.startsWith(".")).count();
      try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
        assertClean(store, context);
        for (int i = 0; i < LEDGERS; i++) {
          String root = "r-" + i;
          Path archive = archives.resolve(root);
          boolean inArchive = Files.exists(archive);
          if (inArchive) {
            try (FileLedgerStore copy = FileLedgerStore.openReadOnly(archive)) {
              assertClean(copy, context + " archive of " + root);
              assertThat(copy.rootIds()).containsExactly(root);
              assertWhole(copy, root, context + " archive");
            }
          }
          boolean inStore = store.exists(root);
          if (archived.contains(root)) {
            assertThat(inArchive && !inStore).as("%s: %s archived", context, root).isTrue();
          } else if (root.equals(inFlight)) {
            assertThat(inArchive || inStore).as("%s: %s somewhere", context, root).isTrue();
            if (inArchive && inStore) {
              both++;
            }
          } else {
            assertThat(inArchive).as("%s: %s not archived", context, root).isFalse();
          }
          if (inStore) {
            assertWhole(store, root, context);
          }
        }
      }
    }
    System.out.printf("archive kill loop: %d SIGKILLs, %d left the ledger in both places, %d "
        + "hidden temp directories left beside the archives (%s)%n", kills(), both, hidden,
        seed);
  }

  @Test
  void killedBackupIsCompleteOrHasNoStoreMarker(TestSeed seed) throws Exception {
    Random random = seed.random();
    Path base = dir.resolve("store");
    prepare(base);
    long took;
    try (FileLedgerStore store = FileLedgerStore.open(base, AckingCommitter.options())) {
      long start = System.nanoTime();
      store.backup(dir.resolve("measured"));
      took = System.nanoTime() - start;
    }
    int complete = 0;
    for (int round = 0; round < kills(); round++) {
      String context = "backup kill " + round + ", " + seed;
      Path target = dir.resolve("backup-" + round);
      try (ChildJvm child = ChildJvm.start(RemovalChild.class, "backup", base.toString(),
          Integer.toString(LEDGERS), target.toString())) {
        child.awaitLine("START", DEADLINE);
        LockSupport.parkNanos((long) (random.nextDouble() * took * 1.2));
        child.kill();
      }
      if (Files.exists(target.resolve(StoreMarker.FILE))) {
        complete++;
        try (FileLedgerStore copy = FileLedgerStore.openReadOnly(target)) {
          assertClean(copy, context);
          assertThat(copy.rootIds()).hasSize(LEDGERS);
          for (String root : copy.rootIds()) {
            assertWhole(copy, root, context);
          }
        }
      } else {
        assertThatThrownBy(() -> FileLedgerStore.openReadOnly(target))
            .as(context).isInstanceOf(StoreNotFoundException.class);
      }
    }
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertClean(store, "source after the kills");
    }
    System.out.printf("backup kill loop: %d SIGKILLs within a %.1f ms backup, %d complete, "
        + "%d without store.json (%s)%n", kills(), took / 1e6, complete, kills() - complete,
        seed);
  }

  private static Set<String> after(List<String> lines, String prefix) {
    Set<String> roots = new HashSet<>();
    for (String line : lines) {
      if (line.startsWith(prefix)) {
        roots.add(line.substring(prefix.length()));
      }
    }
    return roots;
  }

  private static String inFlight(List<String> lines, String prefix, Set<String> done) {
    String last = null;
    for (String line : lines) {
      if (line.startsWith(prefix) && !done.contains(line.substring(prefix.length()))) {
        last = line.substring(prefix.length());
      }
    }
    return last;
  }

  static List<String> listing(Path p) throws IOException {
    return FileLedgerDeleteTest.listing(p);
  }
}
