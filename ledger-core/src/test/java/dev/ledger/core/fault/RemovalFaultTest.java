package dev.ledger.core.fault;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.fault.FaultLoop;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delete, archive and backup on the fault-injecting file system: a power cut at every write,
 * force, move, create and delete they make (and an I/O error at each), then the store is
 * reopened as a restarted process would: it verifies clean, the ledger is whole or gone (gone
 * if the delete returned; here or in its archive, whole, never neither), a returned archive
 * or backup is complete, and a backup that did not return never has a {@code store.json}
 * unless it is complete.
 */
class RemovalFaultTest {
  private static final int COMMITS = 8;
  /** Pads each event so that {@value #COMMITS} commits fill two 4 KiB segments. */
  private static final String PAD = "x".repeat(600);

  @TempDir
  Path tmp;

  /**
   * The state.
   *
   * @param n the revision it was committed at
   */
  record Count(long n) {}

  private static LedgerOptions options() {
    return LedgerOptions.defaults().withSegmentBytes(4096).withCheckpointInterval(5)
        .withLockTimeout(Duration.ofSeconds(5));
  }

  /** The store every run starts from, written once on the real file system. */
  private static Path template;

  @BeforeAll
  static void writeTemplate(@TempDir Path dir) {
    template = dir.resolve("template");
    writeStore(template);
  }

  /**
   * Copies the template into the run's directory through the real file system, so that the
   * fault model sees it as durable (it tracks only what goes through the faulty one).
   */
  private static void prepare(Path root) throws IOException {
    Path target = FaultyFileSystem.real(root).resolve("store");
    try (Stream<Path> all = Files.walk(template)) {
      for (Path p : all.toList()) {
        Path copy = target.resolve(template.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(copy);
        } else {
          Files.copy(p, copy);
        }
      }
    }
  }

  /** Two ledgers of {@value #COMMITS} commits: "gone" is removed, "kept" must stay. */
  private static void writeStore(Path base) {
    try (FileLedgerStore store = FileLedgerStore.open(base, options())) {
      for (String id : new String[] {"gone", "kept"}) {
        Ledger<Count> ledger = store.ledger(id, Count.class);
        for (long r = 1; r <= COMMITS; r++) {
          ledger.commit(r - 1, new Count(r), EventDraft.of("counted", Map.of("n", r, "pad", PAD))
              .withCommandId(id + "-" + r));
        }
      }
    }
  }

  private static void assertWhole(LedgerStore store, String id, String context) {
    Ledger<Count> ledger = store.ledger(id, Count.class);
    assertThat(ledger.load().state()).as("%s: %s", context, id).isEqualTo(new Count(COMMITS));
    assertThat(ledger.events(Cursor.START, 100).events()).hasSize(COMMITS);
    assertThat(ledger.command(id + "-3")).isPresent();
  }

  private static void assertClean(FileLedgerStore store, String context) {
    VerifyReport report = store.verify();
    assertThat(report.clean()).as("%s: %s", context, report.findings()).isTrue();
  }

  private static boolean isEmpty(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return true;
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    }
  }

  /**
   * A power cut at every operation of the kind; a transient I/O error too for the operations
   * whose failure a caller sees (forces, renames, deletes, links), to keep the loop's length
   * fit for CI.
   */
  private static Persistence[] kinds(Op op) {
    return op == Op.WRITE || op == Op.CREATE ? new Persistence[] {null}
        : new Persistence[] {null, Persistence.TRANSIENT};
  }

  private Path scratch(String name) throws IOException {
    return Files.createDirectories(tmp.resolve(name));
  }

  private static FaultLoop loop(Op op, Persistence persistence) {
    FaultLoop loop = persistence == null ? FaultLoop.powerCutAt(op)
        : FaultLoop.ioErrorAt(op, persistence);
    return loop.withSetup(RemovalFaultTest::prepare);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "DELETE"})
  void powerCutsAndErrorsDuringDeleteLeaveTheLedgerWholeOrGone(Op op) throws IOException {
    int faults = 0;
    for (Persistence persistence : kinds(op)) {
      AtomicBoolean returned = new AtomicBoolean();
      faults += loop(op, persistence).run(scratch("delete-" + op + "-" + persistence),
          root -> {
            returned.set(false);
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                options())) {
              store.delete("gone");
              returned.set(true);
            }
          },
          (root, fault) -> {
            String context = fault.toString();
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                options())) {
              assertThat(isEmpty(root.resolve("store").resolve("ledgers").resolve(".trash")))
                  .as("%s: trash emptied by the open", context).isTrue();
              assertClean(store, context);
              assertWhole(store, "kept", context);
              if (returned.get()) {
                assertThat(store.exists("gone")).as("%s: deleted", context).isFalse();
              } else if (store.exists("gone")) {
                assertWhole(store, "gone", context);
              }
            }
          });
    }
    System.out.printf("delete under faults at %s: %d power cuts and I/O errors%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "DELETE"})
  void powerCutsAndErrorsDuringArchiveKeepTheLedgerSomewhereWhole(Op op) throws IOException {
    int faults = 0;
    for (Persistence persistence : kinds(op)) {
      AtomicBoolean returned = new AtomicBoolean();
      faults += loop(op, persistence).run(scratch("archive-" + op + "-" + persistence),
          root -> {
            returned.set(false);
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                options())) {
              store.archive("gone", root.resolve("archives").resolve("gone"));
              returned.set(true);
            }
          },
          (root, fault) -> {
            String context = fault.toString();
            Path archive = root.resolve("archives").resolve("gone");
            boolean archived = Files.exists(archive);
            if (archived) {
              try (FileLedgerStore copy = FileLedgerStore.openReadOnly(archive)) {
                assertClean(copy, context + ", the archive");
                assertThat(copy.rootIds()).containsExactly("gone");
                assertWhole(copy, "gone", context + ", the archive");
              }
            }
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                options())) {
              assertClean(store, context);
              assertWhole(store, "kept", context);
              boolean here = store.exists("gone");
              if (returned.get()) {
                assertThat(archived && !here).as("%s: archived and removed", context).isTrue();
              } else {
                assertThat(archived || here).as("%s: somewhere", context).isTrue();
              }
              if (here) {
                assertWhole(store, "gone", context);
              }
            }
          });
    }
    System.out.printf("archive under faults at %s: %d power cuts and I/O errors%n", op, faults);
  }

  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE", "LINK"})
  void powerCutsAndErrorsDuringBackupNeverLeaveAnIncompleteStore(Op op) throws IOException {
    int faults = 0;
    for (Persistence persistence : kinds(op)) {
      AtomicBoolean returned = new AtomicBoolean();
      faults += loop(op, persistence).run(scratch("backup-" + op + "-" + persistence),
          root -> {
            returned.set(false);
            try (FileLedgerStore store = FileLedgerStore.open(root.resolve("store"),
                options())) {
              store.backup(root.resolve("backup"));
              returned.set(true);
            }
          },
          (root, fault) -> {
            String context = fault.toString();
            Path backup = root.resolve("backup");
            if (returned.get() || Files.exists(backup.resolve("store.json"))) {
              try (FileLedgerStore copy = FileLedgerStore.openReadOnly(backup)) {
                assertClean(copy, context + ", the backup");
                assertThat(copy.rootIds()).containsExactly("gone", "kept");
                assertWhole(copy, "gone", context);
                assertWhole(copy, "kept", context);
              }
            } else {
              assertThatThrownBy(() -> FileLedgerStore.openReadOnly(backup))
                  .as(context).isInstanceOf(StoreNotFoundException.class);
            }
            try (FileLedgerStore store = FileLedgerStore.openReadOnly(root.resolve("store"))) {
              assertClean(store, context);
            }
          });
    }
    System.out.printf("backup under faults at %s: %d power cuts and I/O errors%n", op, faults);
  }
}
