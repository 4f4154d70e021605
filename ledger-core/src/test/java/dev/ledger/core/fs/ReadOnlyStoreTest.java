package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.ReadOnlyStoreException;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.testing.base.DirectorySnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadOnlyStoreTest {
  @TempDir
  Path dir;

  record Counter(int value) {}

  /**
   * Every path under {@code base} with its kind, size, content and modification time,
   * directories' times included.
   */
  private static DirectorySnapshot tree(Path base) throws IOException {
    return DirectorySnapshot.of(base, DirectorySnapshot.Options.of(
        DirectorySnapshot.Aspect.CONTENT, DirectorySnapshot.Aspect.FILE_TIMES,
        DirectorySnapshot.Aspect.DIRECTORY_TIMES));
  }

  @Test
  void readOnlyStoreReadsACopiedDirectoryAndWritesNothing() throws IOException {
    Path original = dir.resolve("original");
    try (FileLedgerStore store = FileLedgerStore.open(original)) {
      var ledger = store.ledger("run-1", Counter.class);
      ledger.commit(0, new Counter(1), EventDraft.of("a", Map.of()));
      ledger.commit(1, new Counter(2), EventDraft.of("b", Map.of()));
    }
    Path copy = dir.resolve("copy");
    try (Stream<Path> all = Files.walk(original)) {
      for (Path p : all.toList()) {
        Path target = copy.resolve(original.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    DirectorySnapshot before = tree(copy);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(copy)) {
      assertThat(store.readOnly()).isTrue();
      assertThat(store.rootIds()).containsExactly("run-1");
      var ledger = store.ledger("run-1", Counter.class);
      assertThat(ledger.load().state()).isEqualTo(new Counter(2));
      assertThat(ledger.events(Cursor.START, 10).events()).hasSize(2);
      assertThatThrownBy(() -> ledger.commit(2, new Counter(3)))
          .isInstanceOf(ReadOnlyStoreException.class).hasMessageContaining("run-1");
    }
    assertThat(before.diff(tree(copy))).isEmpty();
  }

  @Test
  void readOnlyOpenOfAMissingStoreFails() {
    assertThatThrownBy(() -> FileLedgerStore.openReadOnly(dir.resolve("nothing")))
        .isInstanceOf(StoreNotFoundException.class);
    assertThat(Files.exists(dir.resolve("nothing"))).isFalse();
  }
}
