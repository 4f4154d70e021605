package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.FileArtifact;
import dev.ledger.artifacts.ReadOnlyArtifactStoreException;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link FileArtifactStore#openReadOnly}: reads everything a writer left, sees what a writer
 * adds, refuses every write, and creates, locks and changes nothing, not even the store's
 * lock file or temp directory.
 */
class FileArtifactStoreReadOnlyTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private final MutableClock clock = new MutableClock(NOW);

  @TempDir
  Path temp;

  private Path base;
  private ContentId report;
  private ArtifactSnapshot kept;
  private ArtifactSnapshot orphan;

  @BeforeEach
  void writeAStore() {
    base = temp.resolve("store");
    try (FileArtifactStore writer = FileArtifactStore.open(base, options())) {
      report = writer.blobs().put(utf8("report"));
      writer.blobs().put(utf8("unreferenced"));
      kept = writer.freeze("root-1", "kept", AttemptSubmission.of("kept",
          List.of(ArtifactRef.ofBlob("report", "text/plain", report)), List.of()));
      orphan = writer.freeze("root-1", "orphan", AttemptSubmission.of("orphan", List.of(),
          List.of()));
      writer.freeze("Root-2", "other", AttemptSubmission.of("other", List.of(), List.of()));
    }
  }

  private ArtifactOptions options() {
    return ArtifactOptions.defaults().withClock(clock).withLockTimeout(Duration.ofSeconds(10));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Every entry under {@code root}: kind, size, content, permissions and modification time,
   * directories' times included (a temp file created and deleted again changes its
   * directory's time).
   */
  private static DirectorySnapshot snapshot(Path root) throws IOException {
    return DirectorySnapshot.of(root, DirectorySnapshot.Options.of(Aspect.CONTENT,
        Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES, Aspect.PERMISSIONS));
  }

  @Test
  void readsListsAndVerifiesWhatAWriterLeft() throws IOException {
    try (FileArtifactStore store = FileArtifactStore.openReadOnly(base)) {
      assertThat(store.readOnly()).isTrue();
      assertThat(store.options()).isEqualTo(ArtifactOptions.defaults());
      assertThat(store).hasToString("FileArtifactStore[read-only " + store.directory() + "]");
      assertThat(store.get("root-1", kept.snapshotId())).isEqualTo(kept);
      assertThat(store.getForAttempt("root-1", "orphan")).contains(orphan);
      assertThat(store.rootIds()).containsExactly("Root-2", "root-1");
      SnapshotPage first = store.list("root-1", SnapshotCursor.START, 1);
      SnapshotPage second = store.list("root-1", first.nextCursor(), 1);
      assertThat(List.of(first.snapshots().get(0), second.snapshots().get(0)))
          .containsExactlyInAnyOrder(kept, orphan);
      assertThat(second.hasMore()).isFalse();
      assertThat(store.listOrphans("root-1", Set.of("kept"))).containsExactly(orphan);
      assertThat(store.blobs().exists(report)).isTrue();
      assertThat(store.blobs().size(report)).isEqualTo(6);
      try (InputStream in = store.blobs().open(report)) {
        assertThat(in.readAllBytes()).isEqualTo(utf8("report"));
      }
      assertThat(store.blobs().verify().checked()).isEqualTo(2);
      assertThat(store.blobs().verify().sound()).isTrue();
    }
  }

  @Test
  void everyWriteIsRefusedAndNothingOnDiskChanges() throws IOException {
    // A copied directory need not have the lock file or the temp directory: neither may appear.
    Files.delete(base.resolve("artifacts/.lock"));
    Files.delete(base.resolve("artifacts/tmp"));
    Path input = temp.resolve("input.txt");
    Files.writeString(input, "input");
    clock.advance(Duration.ofDays(30));
    DirectorySnapshot before = snapshot(base);

    try (FileArtifactStore store = FileArtifactStore.openReadOnly(base)) {
      ByteArrayInputStream stream = new ByteArrayInputStream(utf8("stream"));
      List<Executable> writes = List.of(
          () -> store.blobs().put(utf8("new")),
          () -> store.blobs().put(report.hex().getBytes(StandardCharsets.UTF_8)),
          () -> store.blobs().put(stream),
          () -> store.blobs().put(input),
          () -> store.freeze("root-1", "new", AttemptSubmission.of("new", List.of(), List.of())),
          () -> store.freeze("root-1", "kept", AttemptSubmission.of("kept",
              List.of(ArtifactRef.ofBlob("report", "text/plain", report)), List.of())),
          () -> store.freeze("root-3", "with-file", AttemptSubmission.of("f", List.of(),
              List.of()).withFile(new FileArtifact("in", null, input))),
          () -> store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DRY_RUN),
          () -> store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DELETE),
          () -> store.collectGarbage(Duration.ZERO, CleanupMode.DRY_RUN),
          () -> store.collectGarbage(Duration.ZERO, CleanupMode.DELETE));
      List<String> operations = new ArrayList<>();
      for (Executable write : writes) {
        assertThatThrownBy(write::execute)
            .isInstanceOf(ReadOnlyStoreException.class)
            .isInstanceOfSatisfying(ReadOnlyArtifactStoreException.class, e -> {
              assertThat(e.store()).isEqualTo(store.directory().toString());
              assertThat(e.getMessage()).startsWith("Artifact store " + store.directory()
                  + " is read-only; refused ");
              operations.add(e.operation());
            });
      }
      assertThat(operations).contains("freeze of attempt 'new' of root 'root-1'",
          "orphan cleanup (DRY_RUN) of root 'root-1'", "garbage collection (DELETE)",
          "a blob put of " + input);
      assertThat(stream.available()).as("the refused put read nothing").isEqualTo(6);
      assertThat(store.rootIds()).containsExactly("Root-2", "root-1");
    }
    assertThat(before.diff(snapshot(base))).isEmpty();
  }

  @Test
  void seesWhatAWriterAddsLater() {
    try (FileArtifactStore reader = FileArtifactStore.openReadOnly(base);
        FileArtifactStore writer = FileArtifactStore.open(base, options())) {
      SnapshotPage all = reader.list("root-3", SnapshotCursor.START, 10);
      assertThat(all.snapshots()).isEmpty();
      ArtifactSnapshot later = writer.freeze("root-3", "later",
          AttemptSubmission.of("later", List.of(), List.of()));
      assertThat(reader.getForAttempt("root-3", "later")).contains(later);
      assertThat(reader.rootIds()).containsExactly("Root-2", "root-1", "root-3");
      assertThat(reader.list("root-3", all.nextCursor(), 10).snapshots()).containsExactly(later);
    }
  }

  @Test
  void aCursorKeepsItsPlaceInACopiedDirectory() throws IOException {
    SnapshotPage first;
    try (FileArtifactStore writer = FileArtifactStore.open(base, options())) {
      first = writer.list("root-1", SnapshotCursor.START, 1);
    }
    Path copy = temp.resolve("copy");
    try (Stream<Path> paths = Files.walk(base)) {
      for (Path p : paths.toList()) {
        Path target = copy.resolve(base.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    try (FileArtifactStore store = FileArtifactStore.openReadOnly(copy)) {
      SnapshotPage rest = store.list("root-1", SnapshotCursor.of(first.nextCursor().token()), 5);
      assertThat(rest.snapshots()).hasSize(1).doesNotContainAnyElementsOf(first.snapshots());
      assertThat(rest.hasMore()).isFalse();
    }
  }

  @Test
  void openingReadOnlyWhereNoStoreIsRefusesPlainlyAndCreatesNothing() throws IOException {
    Path missing = temp.resolve("missing");
    assertThatThrownBy(() -> FileArtifactStore.openReadOnly(missing))
        .isInstanceOf(LedgerIOException.class)
        .hasMessageContaining("no artifact store at " + missing);
    assertThat(missing).doesNotExist();

    Path empty = Files.createDirectory(temp.resolve("empty"));
    assertThatThrownBy(() -> FileArtifactStore.openReadOnly(empty))
        .isInstanceOf(LedgerIOException.class)
        .hasMessageContaining("no artifact store at " + empty);
    Files.createDirectory(empty.resolve("artifacts"));
    assertThatThrownBy(() -> FileArtifactStore.openReadOnly(empty))
        .isInstanceOf(LedgerIOException.class)
        .hasMessageContaining("no artifact store at " + empty);
    try (Stream<Path> entries = Files.walk(empty)) {
      assertThat(entries.count()).isEqualTo(2); // empty and empty/artifacts, as they were
    }

    Path file = Files.writeString(temp.resolve("file"), "not a store");
    assertThatThrownBy(() -> FileArtifactStore.openReadOnly(file))
        .isInstanceOf(LedgerIOException.class).hasMessageContaining(file + ": not a directory");
  }

  @Test
  void openingOnARegularFileSaysNotADirectoryAndChangesNothing() throws IOException {
    Path file = Files.writeString(temp.resolve("file"), "not a store");
    assertThatThrownBy(() -> FileArtifactStore.open(file, options()))
        .isInstanceOf(LedgerIOException.class).hasMessageContaining(file + ": not a directory");
    Path artifactsIsAFile = Files.createDirectory(temp.resolve("base"));
    Files.writeString(artifactsIsAFile.resolve("artifacts"), "a file");
    assertThatThrownBy(() -> FileArtifactStore.open(artifactsIsAFile, options()))
        .isInstanceOf(LedgerIOException.class)
        .hasMessageContaining(artifactsIsAFile.resolve("artifacts") + ": not a directory");
    assertThat(Files.readString(file)).isEqualTo("not a store");
    assertThat(Files.readString(artifactsIsAFile.resolve("artifacts"))).isEqualTo("a file");
  }

  @Test
  void newerFormatIsRefusedReadOnlyToo() throws IOException {
    Path marker = base.resolve("artifacts/format.json");
    Files.setPosixFilePermissions(marker, PosixFilePermissions.fromString("rw-------"));
    Files.writeString(marker, "{\"format\":2,\"kind\":\"dev.ledger.artifacts\"}");
    assertThatThrownBy(() -> FileArtifactStore.openReadOnly(base))
        .isInstanceOf(UnsupportedFormatException.class).hasMessageContaining(marker.toString());
  }

  @Test
  void rootIdsSkipWhatIsNotARootWithSnapshots() throws IOException {
    Path attempts = base.resolve("artifacts/attempts");
    Files.writeString(attempts.resolve("stray-file"), "not a root");
    Files.createDirectory(attempts.resolve("UPPER")); // not a name the store writes
    Files.createDirectory(attempts.resolve("!!bad"));
    Files.createDirectory(attempts.resolve("empty-root"));
    Files.createDirectory(attempts.resolve("notes-only"));
    Files.writeString(attempts.resolve("notes-only/notes.txt"), "not a snapshot");
    Files.writeString(attempts.resolve("notes-only/attempt-x.json"), "{}");
    try (FileArtifactStore store = FileArtifactStore.open(base, options())) {
      store.freeze("0a", "a", AttemptSubmission.of("digit first", List.of(), List.of()));
      store.cleanupOrphans("Root-2", Set.of(), Duration.ZERO, CleanupMode.DELETE);
      assertThat(attempts.resolve("!root-2")).isEmptyDirectory();
      // "!root-2" sorts before "0a" on disk; the ids sort "0a" before "Root-2" (gone) and
      // "root-1".
      assertThat(store.rootIds()).containsExactly("0a", "root-1");
    }
    try (FileArtifactStore store = FileArtifactStore.openReadOnly(base)) {
      assertThat(store.rootIds()).containsExactly("0a", "root-1");
    }
  }
}
