package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.StoreNotFoundException;
import dev.ledger.core.ReadOnlyStoreException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReadOnlyStoreTest {
  @TempDir
  Path dir;

  record Counter(int value) {}

  private Map<String, Long> tree(Path base) throws IOException {
    Map<String, Long> out = new TreeMap<>();
    try (Stream<Path> all = Files.walk(base)) {
      for (Path p : all.toList()) {
        out.put(base.relativize(p) + "@" + Files.getLastModifiedTime(p).toMillis(),
            Files.isDirectory(p) ? -1 : Files.size(p));
      }
    }
    return out;
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
    Map<String, Long> before = tree(copy);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(copy)) {
      assertThat(store.readOnly()).isTrue();
      assertThat(store.rootIds()).containsExactly("run-1");
      var ledger = store.ledger("run-1", Counter.class);
      assertThat(ledger.load().state()).isEqualTo(new Counter(2));
      assertThat(ledger.events(Cursor.START, 10).events()).hasSize(2);
      assertThatThrownBy(() -> ledger.commit(2, new Counter(3)))
          .isInstanceOf(ReadOnlyStoreException.class).hasMessageContaining("run-1");
    }
    assertThat(tree(copy)).isEqualTo(before);
  }

  @Test
  void readOnlyOpenOfAMissingStoreFails() {
    assertThatThrownBy(() -> FileLedgerStore.openReadOnly(dir.resolve("nothing")))
        .isInstanceOf(StoreNotFoundException.class);
    assertThat(Files.exists(dir.resolve("nothing"))).isFalse();
  }
}
