package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactOptions;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.BlobVerification;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.CorruptArtifactException;
import dev.ledger.artifacts.CorruptBlobException;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the file store promises: layout, permissions, determinism and damage. The shared
 * contract runs against it in ledger-testing ({@code FileArtifactStoreConformanceTest}).
 */
class FileArtifactStoreTest {
  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  private final MutableClock clock = new MutableClock(NOW);
  private ArtifactStore store;
  private Path base;

  @TempDir
  Path temp;

  @BeforeEach
  void openFresh() {
    store = openStore(clock);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  private ArtifactStore openStore(MutableClock clock) {
    base = temp.resolve("store-" + System.nanoTime());
    return FileArtifactStore.open(base, options(clock));
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  private static AttemptSubmission submission(String summary, ContentId... blobs) {
    List<ArtifactRef> refs = new ArrayList<>();
    for (int i = 0; i < blobs.length; i++) {
      refs.add(ArtifactRef.ofBlob("file-" + i, "text/plain", blobs[i]));
    }
    return AttemptSubmission.of(summary, refs, List.of());
  }

  static ArtifactOptions options(MutableClock clock) {
    return ArtifactOptions.defaults().withClock(clock).withLockTimeout(Duration.ofSeconds(10));
  }

  private FileArtifactStore fs() {
    return (FileArtifactStore) store;
  }

  private static String mode(Path path) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  private static void writeOver(Path file, byte[] bytes) throws IOException {
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    Files.write(file, bytes);
  }

  private List<Path> tempFiles() throws IOException {
    try (Stream<Path> files = Files.list(fs().directory().resolve("tmp"))) {
      return files.toList();
    }
  }

  // ------------------------------------------------------------------ layout

  @Test
  void blobsAreFannedOutReadOnlyAndTempFilesAreGone() throws IOException {
    ContentId id = store.blobs().put(utf8("layout"));
    Path path = base.resolve("artifacts/blobs/sha256").resolve(id.hex().substring(0, 2))
        .resolve(id.hex().substring(2));
    assertThat(fs().blobs().path(id)).isEqualTo(path);
    assertThat(Files.readAllBytes(path)).isEqualTo(utf8("layout"));
    assertThat(mode(path)).isEqualTo("r--------");
    assertThat(mode(path.getParent())).isEqualTo("rwx------");
    assertThat(mode(base.resolve("artifacts"))).isEqualTo("rwx------");
    assertThat(tempFiles()).isEmpty();
  }

  @Test
  void snapshotFileIsNamedByTheAttemptDigestAndDeterministic() throws IOException {
    ContentId blob = store.blobs().put(utf8("det"));
    ArtifactSnapshot snapshot = store.freeze("Run-1", "a-1", submission("s", blob));
    Path file = base.resolve("artifacts/attempts/!run-1")
        .resolve("attempt-" + LedgerJson.sha256Hex("a-1") + ".json");
    assertThat(fs().snapshotPath("Run-1", snapshot.snapshotId())).isEqualTo(file);
    assertThat(mode(file)).isEqualTo("r--------");
    String text = Files.readString(file);
    assertThat(text).contains("\"format\" : 1", "\"frozenAt\" : \"2026-11-29T12:00:00Z\"",
        "\"sha256\" : \"" + snapshot.sha256() + "\"").endsWith("}\n");

    Path other = temp.resolve("other");
    try (FileArtifactStore second = FileArtifactStore.open(other, options(clock))) {
      second.blobs().put(utf8("det"));
      second.freeze("Run-1", "a-1", submission("s", blob));
      assertThat(Files.readAllBytes(second.snapshotPath("Run-1", snapshot.snapshotId())))
          .isEqualTo(Files.readAllBytes(file));
    }
    // Every path, and every file byte for byte (times differ between the two stores).
    DirectorySnapshot.Options content = DirectorySnapshot.Options.of(Aspect.CONTENT);
    assertThat(DirectorySnapshot.of(base, content).diff(DirectorySnapshot.of(other, content)))
        .isEmpty();
    assertThat(tempFiles()).isEmpty();
  }

  @Test
  void reopenedStoreSeesEverything() {
    ContentId blob = store.blobs().put(utf8("persist"));
    ArtifactSnapshot snapshot = store.freeze("root-1", "a-1", submission("s", blob));
    store.close();
    store = FileArtifactStore.open(base, options(clock));
    assertThat(store.getForAttempt("root-1", "a-1")).contains(snapshot);
    assertThat(store.blobs().exists(blob)).isTrue();
  }

  @Test
  void newerStoreFormatIsRefused() throws IOException {
    Path marker = base.resolve("artifacts/format.json");
    writeOver(marker, utf8("{\"format\":2,\"kind\":\"dev.ledger.artifacts\"}"));
    assertThatThrownBy(() -> FileArtifactStore.open(base, options(clock)))
        .isInstanceOf(UnsupportedFormatException.class).hasMessageContaining(marker.toString());
  }

  // ------------------------------------------------------------------ blob damage

  @Test
  void flippedBitIsCaughtByOpenAndByVerify() throws IOException {
    byte[] bytes = new byte[100_000];
    new java.util.Random(3).nextBytes(bytes);
    ContentId id = store.blobs().put(bytes);
    ContentId sound = store.blobs().put(utf8("sound"));
    Path path = fs().blobs().path(id);
    byte[] damaged = bytes.clone();
    damaged[54_321] ^= 0x10;
    writeOver(path, damaged);

    assertThatThrownBy(() -> readAll(store.blobs().open(id)))
        .isInstanceOfSatisfying(CorruptBlobException.class, e -> {
          assertThat(e.path()).isEqualTo(path);
          assertThat(e.expected()).isEqualTo(id);
          assertThat(e.actualSha256()).isEqualTo(LedgerJson.sha256Hex(damaged));
        });
    BlobVerification verification = store.blobs().verify();
    assertThat(verification.checked()).isEqualTo(2);
    assertThat(verification.damaged()).singleElement().satisfies(d -> {
      assertThat(d.path()).isEqualTo(path);
      assertThat(d.expected()).isEqualTo(id);
      assertThat(d.actualSha256()).isEqualTo(LedgerJson.sha256Hex(damaged));
    });
    assertThat(Files.readAllBytes(path)).isEqualTo(damaged); // reported, not repaired
    assertThat(readAll(store.blobs().open(sound))).isEqualTo(utf8("sound"));
  }

  @Test
  void openDetectsDamageOnlyAtTheEndAndSkippingStillHashes() throws IOException {
    ContentId id = store.blobs().put(utf8("0123456789"));
    writeOver(fs().blobs().path(id), utf8("0123456780"));
    try (InputStream in = store.blobs().open(id)) {
      assertThat(in.skip(5)).isEqualTo(5);
      assertThat(in.read()).isEqualTo('5');
      assertThatThrownBy(in::readAllBytes).isInstanceOf(CorruptBlobException.class);
    }
  }

  @Test
  void failedPutsLeaveNoTempFile() throws IOException {
    ContentId id = store.blobs().put(utf8("source"));
    writeOver(fs().blobs().path(id), utf8("damaged"));
    try (InputStream damaged = store.blobs().open(id)) {
      assertThatThrownBy(() -> store.blobs().put(damaged))
          .isInstanceOf(CorruptBlobException.class);
    }
    assertThat(tempFiles()).isEmpty();
    assertThat(store.blobs().verify().checked()).isEqualTo(1);
  }

  @Test
  void misnamedAndStrayBlobFilesAreReported() throws IOException {
    store.blobs().put(utf8("fine"));
    Path fan = base.resolve("artifacts/blobs/sha256/ab");
    Files.createDirectories(fan);
    Files.writeString(fan.resolve("not-a-digest"), "stray");
    Files.writeString(base.resolve("artifacts/blobs/sha256/zz"), "stray");
    BlobVerification verification = store.blobs().verify();
    assertThat(verification.damaged()).extracting(d -> d.path().getFileName().toString())
        .containsExactlyInAnyOrder("not-a-digest", "zz");
    ContentId fine = new ContentId(LedgerJson.sha256Hex(utf8("fine")));
    assertThat(store.collectGarbage(Duration.ZERO, CleanupMode.DELETE).removed()).containsExactly(fine);
    assertThat(fan.resolve("not-a-digest")).exists();
    assertThat(base.resolve("artifacts/blobs/sha256/zz")).exists();
  }

  // ------------------------------------------------------------------ snapshot damage

  private Path frozen(String attempt) {
    ArtifactSnapshot snapshot = store.freeze("root-1", attempt, submission("s-" + attempt));
    return fs().snapshotPath("root-1", snapshot.snapshotId());
  }

  @Test
  void truncatedSnapshotIsATypedErrorAndNothingChanges() throws IOException {
    Path file = frozen("a-1");
    byte[] whole = Files.readAllBytes(file);
    byte[] truncated = java.util.Arrays.copyOf(whole, whole.length / 2);
    writeOver(file, truncated);
    assertThatThrownBy(() -> store.getForAttempt("root-1", "a-1"))
        .isInstanceOfSatisfying(CorruptArtifactException.class,
            e -> assertThat(e.path()).isEqualTo(file));
    assertThatThrownBy(() -> store.freeze("root-1", "a-1", submission("s-a-1")))
        .isInstanceOf(CorruptArtifactException.class);
    assertThatThrownBy(() -> store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DELETE))
        .isInstanceOf(CorruptArtifactException.class);
    assertThatThrownBy(() -> store.collectGarbage(Duration.ZERO, CleanupMode.DELETE))
        .isInstanceOf(CorruptArtifactException.class);
    assertThat(Files.readAllBytes(file)).isEqualTo(truncated);
  }

  @Test
  void garbageAndForgedSnapshotsAreTypedErrors() throws IOException {
    Path file = frozen("a-1");
    String good = Files.readString(file);
    String[] bad = {
        "\u0000\u0001garbage",
        "",
        "[]",
        good.replace("\"summary\" : \"s-a-1\"", "\"summary\" : \"forged\""),
        good.replace("\"rootId\" : \"root-1\"", "\"rootId\" : \"root-2\""),
        good.replace("\"attemptId\" : \"a-1\"", "\"attemptId\" : \"a-2\""),
        good.replace("\"kind\"", "\"extra\" : 1,\n  \"kind\""),
        good.replace("2026-11-29T12:00:00Z", "yesterday"),
    };
    for (String text : bad) {
      writeOver(file, text.getBytes(StandardCharsets.UTF_8));
      assertThatThrownBy(() -> store.getForAttempt("root-1", "a-1"))
          .as(text).isInstanceOfSatisfying(CorruptArtifactException.class,
              e -> assertThat(e.path()).isEqualTo(file));
    }
    writeOver(file, good.replace("\"format\" : 1", "\"format\" : 9")
        .getBytes(StandardCharsets.UTF_8));
    assertThatThrownBy(() -> store.getForAttempt("root-1", "a-1"))
        .isInstanceOf(UnsupportedFormatException.class).hasMessageContaining(file.toString());
  }

  @Test
  void strayFilesInARootDirectoryAreIgnored() throws IOException {
    Path file = frozen("a-1");
    Files.writeString(file.resolveSibling("notes.txt"), "not a snapshot");
    Files.writeString(file.resolveSibling(".attempt-x.json.tmp"), "{");
    assertThat(store.list("root-1", SnapshotCursor.START, 10).snapshots()).hasSize(1);
    assertThat(store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DELETE).removed())
        .hasSize(1);
    assertThat(file.resolveSibling("notes.txt")).exists();
    assertThat(file.resolveSibling(".attempt-x.json.tmp")).exists();
  }

  // ------------------------------------------------------------------ collection on disk

  @Test
  void collectionUsesTheFileTimeOfEachBlob() throws IOException {
    ContentId a = store.blobs().put(utf8("a"));
    ContentId b = store.blobs().put(utf8("b"));
    Files.setLastModifiedTime(fs().blobs().path(a),
        FileTime.from(NOW.minus(Duration.ofHours(3))));
    assertThat(store.collectGarbage(Duration.ofHours(1), CleanupMode.DELETE).removed()).containsExactly(a);
    assertThat(store.blobs().exists(b)).isTrue();
  }

  @Test
  void staleTempFilesOfCrashedWritersAreRemoved() throws IOException {
    Path stale = fs().directory().resolve("tmp/crashed.tmp");
    Path recent = fs().directory().resolve("tmp/in-progress.tmp");
    Files.writeString(stale, "half");
    Files.writeString(recent, "half");
    Files.setLastModifiedTime(stale, FileTime.from(java.time.Instant.now()
        .minus(Duration.ofHours(2))));
    store.collectGarbage(Duration.ofMinutes(1), CleanupMode.DRY_RUN);
    assertThat(stale).exists();
    store.collectGarbage(Duration.ofMinutes(1), CleanupMode.DELETE);
    assertThat(stale).doesNotExist();
    assertThat(recent).exists();
  }
}
