package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.ReadOnlyArtifactStoreException;
import dev.ledger.artifacts.SnapshotCursor;
import dev.ledger.artifacts.SnapshotPage;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.StoreClosedException;
import dev.ledger.testing.base.MutableClock;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reading half of the artifact store contract: paging with {@link SnapshotCursor}s
 * (including hostile ones), the list of roots, and read-only stores. It also holds the fixture
 * both halves share. Backends do not extend it directly: they extend
 * {@link ArtifactStoreContractTest}, which runs it too.
 */
public abstract class ArtifactStoreReadingContract {
  /** Where the contract clock starts. */
  protected static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");

  /** The clock the store under test must use for frozenAt and blob ages. */
  protected final MutableClock clock = new MutableClock(NOW);
  /** The store under test, fresh for each test. */
  protected ArtifactStore store;

  /** A scratch directory for input files (and for stores that need one). */
  @TempDir
  protected Path temp;

  /** For the contract's subclass only. */
  ArtifactStoreReadingContract() {}

  /**
   * Opens a fresh, empty store.
   *
   * @param clock the clock the store must stamp and measure ages with
   * @return the store; the suite closes it
   */
  protected abstract ArtifactStore openStore(MutableClock clock);

  /**
   * Opens a read-only store over the contents of {@code writable}: a file store reopens its
   * directory with {@code openReadOnly}, an in-memory store gives its {@code readOnlyView}.
   * It must see what {@code writable} holds and, at once or on its next read, what it writes
   * later.
   *
   * @param writable a store from {@link #openStore}
   * @return the read-only store; the suite closes it
   */
  protected abstract ArtifactStore openReadOnly(ArtifactStore writable);

  @BeforeEach
  void openFresh() {
    store = openStore(clock);
  }

  @AfterEach
  void closeStore() {
    store.close();
  }

  /**
   * The UTF-8 bytes of a string.
   *
   * @param text the string
   * @return its UTF-8 bytes
   */
  protected static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Reads a stream to its end and closes it.
   *
   * @param in the stream
   * @return every byte it gave
   * @throws IOException if reading fails
   */
  protected static byte[] readAll(InputStream in) throws IOException {
    try (in) {
      return in.readAllBytes();
    }
  }

  /**
   * A submission referencing blobs as artifacts, in order.
   *
   * @param summary the summary
   * @param blobs the blobs, named {@code file-0}, {@code file-1}, …
   * @return the submission
   */
  protected static AttemptSubmission submission(String summary, ContentId... blobs) {
    List<ArtifactRef> refs = new ArrayList<>();
    for (int i = 0; i < blobs.length; i++) {
      refs.add(ArtifactRef.ofBlob("file-" + i, "text/plain", blobs[i]));
    }
    return AttemptSubmission.of(summary, refs, List.of());
  }

  private List<String> freezeAll(String rootId, int count) {
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      ids.add(store.freeze(rootId, "a-" + i, submission("s" + i)).snapshotId());
    }
    ids.sort(null);
    return ids;
  }

  private static String snapshotIds(SnapshotPage page) {
    return page.snapshots().stream().map(ArtifactSnapshot::snapshotId).toList().toString();
  }

  // ------------------------------------------------------------------ options

  @Test
  void storeRunsOnTheClockItWasGiven() {
    assertThat(store.options().clock().instant()).isEqualTo(NOW);
    clock.advance(Duration.ofMinutes(1));
    assertThat(store.freeze("root-1", "a-1", submission("s")).frozenAt())
        .isEqualTo(NOW.plus(Duration.ofMinutes(1)));
  }

  // ------------------------------------------------------------------ listing

  @Test
  void listPagesInSnapshotIdOrderUntilHasMoreIsFalse() {
    List<String> ids = freezeAll("root-1", 7);
    store.freeze("root-2", "a-x", submission("elsewhere"));
    List<String> seen = new ArrayList<>();
    SnapshotCursor cursor = SnapshotCursor.START;
    int pages = 0;
    SnapshotPage page;
    do {
      page = store.list("root-1", cursor, 3);
      page.snapshots().forEach(s -> seen.add(s.snapshotId()));
      assertThat(page.snapshots()).allSatisfy(s -> assertThat(s.rootId()).isEqualTo("root-1"));
      cursor = page.nextCursor();
      pages++;
    } while (page.hasMore());
    assertThat(seen).containsExactlyElementsOf(ids);
    assertThat(pages).isEqualTo(3);
    assertThat(page.snapshots()).hasSize(1);

    SnapshotPage exact = store.list("root-1", SnapshotCursor.START, 7);
    assertThat(exact.snapshots()).hasSize(7);
    assertThat(exact.hasMore()).isFalse();
    SnapshotPage one = store.list("root-1", SnapshotCursor.START, 6);
    assertThat(one.hasMore()).isTrue();
  }

  @Test
  void emptyPageKeepsItsCursor() {
    SnapshotPage nothing = store.list("root-9", SnapshotCursor.START, 5);
    assertThat(nothing).isEqualTo(new SnapshotPage(List.of(), SnapshotCursor.START, false));

    freezeAll("root-1", 2);
    SnapshotPage all = store.list("root-1", SnapshotCursor.START, 10);
    assertThat(all.nextCursor().isStart()).isFalse();
    SnapshotPage after = store.list("root-1", all.nextCursor(), 10);
    assertThat(after.snapshots()).isEmpty();
    assertThat(after.hasMore()).isFalse();
    assertThat(after.nextCursor()).isEqualTo(all.nextCursor());
    assertThat(store.list("root-1", after.nextCursor(), 10)).isEqualTo(after);
  }

  @Test
  void cursorIsAStringThatSurvivesTheRoundTripAndTheStoreInstance() {
    List<String> ids = freezeAll("root-1", 4);
    SnapshotPage first = store.list("root-1", SnapshotCursor.START, 2);
    String token = first.nextCursor().token();
    assertThat(token).matches("[A-Za-z0-9_-]+");
    try (ArtifactStore reader = openReadOnly(store)) {
      SnapshotPage rest = reader.list("root-1", SnapshotCursor.of(token), 2);
      assertThat(snapshotIds(rest)).isEqualTo(ids.subList(2, 4).toString());
    }
  }

  @Test
  void cursorAfterARemovedSnapshotContinuesWhereItWas() {
    List<String> ids = freezeAll("root-1", 5);
    SnapshotPage first = store.list("root-1", SnapshotCursor.START, 2);
    String lastSeen = first.snapshots().get(1).snapshotId();
    String attemptOfLastSeen = first.snapshots().get(1).attemptId();
    Set<String> known = new java.util.HashSet<>(Set.of("a-0", "a-1", "a-2", "a-3", "a-4"));
    known.remove(attemptOfLastSeen);
    assertThat(store.cleanupOrphans("root-1", known, Duration.ZERO, CleanupMode.DELETE)
        .removed()).containsExactly(lastSeen);
    SnapshotPage rest = store.list("root-1", first.nextCursor(), 10);
    assertThat(snapshotIds(rest)).isEqualTo(ids.subList(2, 5).toString());
  }

  @Test
  void hostileCursorsAreRefusedWithoutReading() {
    freezeAll("root-1", 3);
    freezeAll("root-2", 3);
    SnapshotCursor foreign = store.list("root-2", SnapshotCursor.START, 1).nextCursor();
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    List<String> tokens = List.of(
        foreign.token(),
        "garbage",
        "%%%",
        "x".repeat(10_000),
        url.encodeToString(utf8("{}")),
        url.encodeToString(utf8("{\"after\":\"" + "0".repeat(64)
            + "\",\"root\":\"0000000000000000\",\"v\":1}")),
        url.encodeToString(utf8("{\"after\":\"../../etc/passwd\",\"root\":\"x\",\"v\":1}")),
        url.encodeToString(utf8("{\"after\":2,\"offset\":0,\"root\":\"x\",\"segment\":1,\"v\":1}")),
        foreign.token().substring(0, foreign.token().length() - 3));
    for (String token : tokens) {
      assertThatThrownBy(() -> store.list("root-1", SnapshotCursor.of(token), 10))
          .as(token).isInstanceOf(InvalidCursorException.class)
          .hasMessageContaining("root-1");
    }
  }

  @Test
  void listArgumentsAreChecked() {
    assertThatThrownBy(() -> store.list("root-1", SnapshotCursor.START, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    assertThatThrownBy(() -> store.list("root-1", SnapshotCursor.START,
        ArtifactStore.MAX_PAGE_SIZE + 1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(String.valueOf(ArtifactStore.MAX_PAGE_SIZE + 1));
    assertThatThrownBy(() -> store.list("root-1", null, 10))
        .isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> SnapshotCursor.of(null)).isInstanceOf(NullPointerException.class);
    assertThat(store.list("root-1", SnapshotCursor.START, ArtifactStore.MAX_PAGE_SIZE)
        .snapshots()).isEmpty();
  }

  // ------------------------------------------------------------------ roots

  @Test
  void rootIdsAreTheRootsWithSnapshotsSortedById() {
    assertThat(store.rootIds()).isEmpty();
    // Ids sort by String order: digits, then upper case, then lower case.
    for (String root : List.of("b", "Ab", "0a", "a", "B-1")) {
      store.freeze(root, "a-1", submission(root));
    }
    assertThat(store.rootIds()).containsExactly("0a", "Ab", "B-1", "a", "b");
  }

  @Test
  void readingOrFailingToWriteCreatesNoRoot() {
    ContentId missing = new ContentId(Sha256.hex("never stored"));
    store.getForAttempt("ghost", "a-1");
    store.list("ghost", SnapshotCursor.START, 10);
    store.listOrphans("ghost", Set.of());
    store.cleanupOrphans("ghost", Set.of(), Duration.ZERO, CleanupMode.DELETE);
    assertThatThrownBy(() -> store.freeze("ghost", "a-1", submission("s", missing)))
        .isInstanceOf(dev.ledger.artifacts.BlobNotFoundException.class);
    store.blobs().put(utf8("a blob is no root"));
    assertThat(store.rootIds()).isEmpty();
  }

  @Test
  void rootWhoseSnapshotsWereAllRemovedIsNoLongerListed() {
    store.freeze("root-1", "kept", submission("k"));
    store.freeze("root-2", "gone-1", submission("g1"));
    store.freeze("root-2", "gone-2", submission("g2"));
    store.cleanupOrphans("root-2", Set.of("gone-2"), Duration.ZERO, CleanupMode.DELETE);
    assertThat(store.rootIds()).containsExactly("root-1", "root-2");
    store.cleanupOrphans("root-2", Set.of(), Duration.ZERO, CleanupMode.DRY_RUN);
    assertThat(store.rootIds()).containsExactly("root-1", "root-2");
    store.cleanupOrphans("root-2", Set.of(), Duration.ZERO, CleanupMode.DELETE);
    assertThat(store.rootIds()).containsExactly("root-1");
    store.freeze("root-2", "back", submission("b"));
    assertThat(store.rootIds()).containsExactly("root-1", "root-2");
  }

  // ------------------------------------------------------------------ read-only

  @Test
  void readOnlyStoreReadsEverything() throws IOException {
    ContentId blob = store.blobs().put(utf8("evidence"));
    ArtifactSnapshot kept = store.freeze("root-1", "kept", submission("k", blob));
    ArtifactSnapshot orphan = store.freeze("root-1", "orphan", submission("o"));
    try (ArtifactStore reader = openReadOnly(store)) {
      assertThat(reader.get("root-1", kept.snapshotId())).isEqualTo(kept);
      assertThat(reader.getForAttempt("root-1", "orphan")).contains(orphan);
      assertThat(reader.list("root-1", SnapshotCursor.START, 10))
          .isEqualTo(store.list("root-1", SnapshotCursor.START, 10));
      assertThat(reader.rootIds()).containsExactly("root-1");
      assertThat(reader.listOrphans("root-1", Set.of("kept"))).containsExactly(orphan);
      assertThat(reader.blobs().exists(blob)).isTrue();
      assertThat(reader.blobs().size(blob)).isEqualTo(8);
      assertThat(readAll(reader.blobs().open(blob))).isEqualTo(utf8("evidence"));
      assertThat(reader.blobs().verify().checked()).isEqualTo(1);

      ArtifactSnapshot later = store.freeze("root-2", "later", submission("l"));
      assertThat(reader.getForAttempt("root-2", "later")).contains(later);
      assertThat(reader.rootIds()).containsExactly("root-1", "root-2");
    }
    assertThat(store.getForAttempt("root-1", "kept")).as("closing the reader").contains(kept);
  }

  @Test
  void readOnlyStoreRefusesEveryWriteAndChangesNothing() throws IOException {
    ContentId blob = store.blobs().put(utf8("old"));
    ContentId unreferenced = store.blobs().put(utf8("unreferenced"));
    store.freeze("root-1", "kept", submission("k", blob));
    ArtifactSnapshot orphan = store.freeze("root-1", "orphan", submission("o"));
    clock.advance(Duration.ofDays(30));
    Path file = Files.writeString(temp.resolve("input.txt"), "input");
    ByteArrayInputStream stream = new ByteArrayInputStream(utf8("stream"));
    try (ArtifactStore reader = openReadOnly(store)) {
      List<Executable> writes = List.of(
          () -> reader.blobs().put(utf8("new")),
          () -> reader.blobs().put(utf8("old")),
          () -> reader.blobs().put(stream),
          () -> reader.blobs().put(file),
          () -> reader.freeze("root-1", "new", submission("n")),
          () -> reader.freeze("root-1", "kept", submission("k", blob)),
          () -> reader.cleanupOrphans("root-1", Set.of("kept"), Duration.ZERO,
              CleanupMode.DRY_RUN),
          () -> reader.cleanupOrphans("root-1", Set.of("kept"), Duration.ZERO,
              CleanupMode.DELETE),
          () -> reader.collectGarbage(Duration.ZERO, CleanupMode.DRY_RUN),
          () -> reader.collectGarbage(Duration.ZERO, CleanupMode.DELETE));
      for (Executable write : writes) {
        assertThatThrownBy(write::execute).isInstanceOf(ReadOnlyArtifactStoreException.class)
            .isInstanceOf(ReadOnlyStoreException.class).hasMessageContaining("read-only");
      }
      assertThat(stream.available()).as("a refused put reads nothing").isEqualTo(6);
      assertThat(reader.getForAttempt("root-1", "new")).isEmpty();
    }
    assertThat(store.getForAttempt("root-1", "orphan")).contains(orphan);
    assertThat(store.getForAttempt("root-1", "new")).isEmpty();
    assertThat(store.blobs().exists(unreferenced)).isTrue();
    assertThat(store.blobs().verify().checked()).isEqualTo(2);
    // The refused put of "old" renewed nothing: it is collectable as soon as it is unreferenced.
    store.cleanupOrphans("root-1", Set.of(), Duration.ZERO, CleanupMode.DELETE);
    assertThat(store.collectGarbage(Duration.ofDays(1), CleanupMode.DELETE).removed())
        .containsExactlyInAnyOrder(blob, unreferenced);
  }

  @Test
  void closedReadOnlyStoreRefusesReads() {
    ArtifactStore reader = openReadOnly(store);
    reader.close();
    reader.close();
    assertThatThrownBy(() -> reader.getForAttempt("root-1", "a"))
        .isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(reader::rootIds).isInstanceOf(StoreClosedException.class);
    assertThat(store.rootIds()).as("the writable store stays open").isEmpty();
  }
}
