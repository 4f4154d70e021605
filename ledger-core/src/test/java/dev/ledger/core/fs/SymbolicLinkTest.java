package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.SymbolicLinkException;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A symbolic link planted in each place of a ledger store is refused with
 * {@link SymbolicLinkException} naming it, never followed: what it points to is neither read
 * nor changed, and the store's own files do not change either. The base directory itself may
 * be a link.
 */
class SymbolicLinkTest {
  private static final LedgerOptions OPTIONS = LedgerOptions.defaults()
      .withClock(Clock.fixed(Instant.parse("2026-11-29T12:00:00Z"), ZoneOffset.UTC))
      .withCheckpointInterval(2);

  @TempDir
  Path tmp;

  /** The store under test. */
  Path dir;
  /** Where planted links point: a complete copy of the store's files, kept elsewhere. */
  Path elsewhere;

  @BeforeEach
  void writeStoreAndACopyElsewhere() throws IOException {
    assumeTrue(canLink(), "this file system has no symbolic links");
    dir = tmp.resolve("store");
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      Ledger<JsonNode> ledger = store.ledger("run-1", JsonNode.class);
      for (int i = 0; i < 3; i++) {
        ledger.commit(i, state(i + 1), EventDraft.of("e", Map.of("i", i))
            .withCommandId("cmd-" + i));
      }
    }
    elsewhere = tmp.resolve("elsewhere");
    copy(dir, elsewhere);
  }

  private boolean canLink() throws IOException {
    Path link = tmp.resolve("probe-link");
    try {
      Files.createSymbolicLink(link, tmp);
      Files.delete(link);
      return true;
    } catch (UnsupportedOperationException | IOException e) {
      return false;
    }
  }

  private static JsonNode state(int n) {
    return JsonNodeFactory.instance.objectNode().put("n", n);
  }

  private Path ledgerDir(Path base) {
    return base.resolve("ledgers").resolve("run-1");
  }

  private Path segment(Path base) {
    return ledgerDir(base).resolve("journal").resolve(JournalFiles.name(1));
  }

  /** Replaces {@code path} in the store by a link to its twin in {@link #elsewhere}. */
  private Path plant(Path path) throws IOException {
    Path twin = elsewhere.resolve(dir.relativize(path).toString());
    deleteRecursively(path);
    Files.createSymbolicLink(path, twin);
    return path;
  }

  /**
   * Runs {@code operation} on a fresh store over {@link #dir} and asserts it is refused for
   * {@code link}, and that neither the store nor what the link points to changed.
   */
  private void assertRefused(Path link, String what, Consumer<FileLedgerStore> operation)
      throws IOException {
    DirectorySnapshot store = tree(dir);
    DirectorySnapshot target = tree(elsewhere);
    Throwable thrown;
    try (FileLedgerStore opened = FileLedgerStore.open(dir, OPTIONS)) {
      thrown = catchThrowable(() -> operation.accept(opened));
    }
    assertThat(thrown).as(what).isInstanceOf(SymbolicLinkException.class)
        .hasMessageContaining(link.toString()).hasMessageContaining("symbolic link");
    assertThat(((SymbolicLinkException) thrown).path()).as(what).isEqualTo(link);
    assertThat(store.diff(tree(dir))).as("%s: the store is unchanged", what).isEmpty();
    assertThat(target.diff(tree(elsewhere))).as("%s: the link's target is unchanged", what)
        .isEmpty();
  }

  private static void load(FileLedgerStore store) {
    store.ledger("run-1", JsonNode.class).load();
  }

  private static void commit(FileLedgerStore store) {
    store.ledger("run-1", JsonNode.class).commit(3, state(4));
  }

  private static void events(FileLedgerStore store) {
    store.ledger("run-1", JsonNode.class).events(Cursor.START, 10);
  }

  @Test
  void aLinkedLedgerDirectoryIsRefusedByEveryOperation() throws IOException {
    Path link = plant(ledgerDir(dir));
    assertRefused(link, "load", SymbolicLinkTest::load);
    assertRefused(link, "commit", SymbolicLinkTest::commit);
    assertRefused(link, "events", SymbolicLinkTest::events);
    assertRefused(link, "replay", s -> s.ledger("run-1", JsonNode.class).replay(Cursor.START)
        .close());
    assertRefused(link, "rootIds", FileLedgerStore::rootIds);
  }

  @Test
  void aLinkedJournalDirectoryIsRefused() throws IOException {
    Path link = plant(ledgerDir(dir).resolve("journal"));
    assertRefused(link, "load", SymbolicLinkTest::load);
    assertRefused(link, "commit", SymbolicLinkTest::commit);
    assertRefused(link, "events", SymbolicLinkTest::events);
  }

  @Test
  void aLinkedJournalSegmentIsRefused() throws IOException {
    Path link = plant(segment(dir));
    assertRefused(link, "load", SymbolicLinkTest::load);
    assertRefused(link, "commit", SymbolicLinkTest::commit);
    assertRefused(link, "events", SymbolicLinkTest::events);
  }

  @Test
  void aDanglingLinkWhereTheFirstSegmentWillGoIsRefusedByTheFirstCommit() throws IOException {
    Path journal = Files.createDirectories(ledgerDir(dir).getParent().resolve("run-2")
        .resolve("journal"));
    Path link = Files.createSymbolicLink(journal.resolve(JournalFiles.name(1)),
        elsewhere.resolve("not-there.jsonl"));
    DirectorySnapshot before = tree(dir);
    Throwable thrown;
    try (FileLedgerStore store = FileLedgerStore.open(dir, OPTIONS)) {
      thrown = catchThrowable(() -> store.ledger("run-2", JsonNode.class).commit(0, state(1)));
    }
    assertThat(thrown).isInstanceOf(SymbolicLinkException.class)
        .hasMessageContaining(link.toString());
    assertThat(elsewhere.resolve("not-there.jsonl")).doesNotExist();
    // The writer takes the new ledger's lock (creating its empty lock file) before it meets
    // the link; nothing else is written.
    assertThat(before.diff(tree(dir).without("ledgers/run-2/.lock"))).isEmpty();
  }

  @Test
  void aLinkedCheckpointIsRefused() throws IOException {
    Path link = plant(ledgerDir(dir).resolve("state.json"));
    assertRefused(link, "load", SymbolicLinkTest::load);
    assertRefused(link, "commit", SymbolicLinkTest::commit);
  }

  @Test
  void aLinkedLockFileIsRefusedByACommit() throws IOException {
    Path link = plant(ledgerDir(dir).resolve(".lock"));
    assertRefused(link, "commit", SymbolicLinkTest::commit);
  }

  @Test
  void aLinkedCommandIndexEntryIsRefused() throws IOException {
    Path commands = ledgerDir(dir).resolve("commands");
    Path entry;
    try (Stream<Path> all = Files.walk(commands)) {
      entry = all.filter(Files::isRegularFile).findFirst().orElseThrow();
    }
    Path link = plant(entry);
    // cmd-0 is covered by the checkpoint, so a retry looks it up in the index.
    assertRefused(link, "retried command", s -> s.ledger("run-1", JsonNode.class)
        .commit(0, state(1), EventDraft.of("e", Map.of("i", 0)).withCommandId(commandOf(link))));
  }

  /** The caller's command id whose index entry is {@code entry} (one of cmd-0..cmd-2). */
  private static String commandOf(Path entry) {
    String hex = entry.getParent().getFileName().toString()
        + entry.getFileName().toString().replace(".json", "");
    for (int i = 0; i < 3; i++) {
      if (com.google.common.hash.Hashing.sha256().hashString("cmd-" + i,
          java.nio.charset.StandardCharsets.UTF_8).toString().equals(hex)) {
        return "cmd-" + i;
      }
    }
    throw new AssertionError("no command of the fixture has entry " + entry);
  }

  @Test
  void aLinkedLedgersDirectoryOrMarkerIsRefusedWhenTheStoreOpens() throws IOException {
    for (String name : List.of("ledgers", "store.json")) {
      Path link = plant(dir.resolve(name));
      DirectorySnapshot target = tree(elsewhere);
      for (boolean readOnly : new boolean[] {false, true}) {
        Throwable thrown = catchThrowable(() -> (readOnly ? FileLedgerStore.openReadOnly(dir)
            : FileLedgerStore.open(dir, OPTIONS)).close());
        assertThat(thrown).as("%s, read-only %s", name, readOnly)
            .isInstanceOf(SymbolicLinkException.class).hasMessageContaining(link.toString());
      }
      assertThat(target.diff(tree(elsewhere))).as(name).isEmpty();
      Files.delete(link);
      copy(elsewhere.resolve(name), dir.resolve(name));
    }
  }

  @Test
  void theBaseDirectoryMayBeALink() throws IOException {
    Path base = Files.createSymbolicLink(tmp.resolve("linked-base"), dir);
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<JsonNode> ledger = store.ledger("run-1", JsonNode.class);
      assertThat(ledger.load().revision()).isEqualTo(3);
      ledger.commit(3, state(4));
      assertThat(store.rootIds()).containsExactly("run-1");
    }
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertThat(store.ledger("run-1", JsonNode.class).load().revision()).isEqualTo(4);
    }
    assertThat(Files.isSymbolicLink(base)).isTrue();
  }

  // ---------------------------------------------------------------- helpers

  /**
   * Every path below {@code root} with its kind, content and time (a link's target for a
   * link). A writer takes its lock (writing and clearing its holder line) before it can meet
   * a link, so the lock file's content is compared, not its time.
   */
  static DirectorySnapshot tree(Path root) throws IOException {
    return DirectorySnapshot.of(root, DirectorySnapshot.Options.defaults()
        .ignoringTimesOf(".lock"));
  }

  static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> all = Files.walk(from)) {
      for (Path p : all.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(p, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
  }

  static void deleteRecursively(Path path) throws IOException {
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      try (Stream<Path> children = Files.list(path)) {
        for (Path child : children.toList()) {
          deleteRecursively(child);
        }
      }
    }
    Files.deleteIfExists(path);
  }
}
