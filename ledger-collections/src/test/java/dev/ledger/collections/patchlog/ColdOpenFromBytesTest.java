package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition opened cold on files from its checkpoint's bytes ({@code PatchLog
 * #rawCheckpoint}, documents parsed on first use): reads from several threads see every
 * document; a malformed byte in {@code state.json} is refused at open, and a document whose
 * body holds a member twice when it is first used, both naming the file.
 */
class ColdOpenFromBytesTest {
  /**
   * A document.
   *
   * @param id the key
   * @param n1 a field
   * @param n2 another field, of a name as long as {@code n1}
   * @param status indexed
   */
  public record Item(String id, String n1, String n2, String status) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("items", Item.class, List.of("id"), List.of("status"))
      .build();
  private static final int DOCS = 300;

  @TempDir
  Path dir;

  private Path fill() {
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      // A checkpoint after every commit: the open below reads everything from state.json.
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA,
          CollectionOptions.defaults().withCheckpoints(0.000_001, 0));
      store.execute("p", tx -> {
        List<Item> items = new ArrayList<>();
        for (int i = 0; i < DOCS; i++) {
          items.add(new Item("k" + i, "one é " + i, "two \"\\ " + i, "s" + i % 7));
        }
        tx.collection("items", Item.class).insert(items);
        return null;
      });
    }
    Path state = dir.resolve("ledgers").resolve("p").resolve("state.json");
    assertThat(state).exists();
    return state;
  }

  private static Optional<Item> get(CollectionStore store, String key) {
    return store.read("p", v -> v.collection("items", Item.class).get(Key.of(key)));
  }

  @Test
  void aColdOpenReadsEveryDocumentFromSeveralThreads() throws Exception {
    fill();
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      ExecutorService pool = Executors.newFixedThreadPool(4);
      try {
        List<Future<Integer>> found = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
          found.add(pool.submit(() -> {
            int n = 0;
            for (int i = 0; i < DOCS; i++) {
              Item item = get(store, "k" + i).orElseThrow();
              assertThat(item).isEqualTo(new Item("k" + i, "one é " + i, "two \"\\ " + i,
                  "s" + i % 7));
              n++;
            }
            n += store.read("p", v -> v.collection("items", Item.class)
                .query(Query.builder().exact("status", "s3").build())).items().size();
            return n;
          }));
        }
        for (Future<Integer> f : found) {
          assertThat(f.get()).isEqualTo(DOCS + (DOCS + 3) / 7);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }

  @Test
  void aMalformedByteInTheCheckpointIsRefusedAtOpenNamingTheFile() throws Exception {
    Path state = fill();
    byte[] bytes = Files.readAllBytes(state);
    int at = new String(bytes, StandardCharsets.ISO_8859_1).indexOf("two \\\"\\\\ 5");
    bytes[at + 1] = 0x01; // a raw control character in a string of a document's body
    Files.write(state, bytes);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      assertThatThrownBy(() -> get(store, "k0"))
          .isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json")
          .hasMessageContaining("offset " + (at + 1));
    }
  }

  @Test
  void aDocumentWithAMemberTwiceIsRefusedOnFirstUseNamingTheFile() throws Exception {
    Path state = fill();
    byte[] bytes = Files.readAllBytes(state);
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int doc = text.indexOf("\"id\":\"k5\"");
    int n2 = text.indexOf("\"n2\"", doc);
    bytes[n2 + 2] = '1'; // {"id":"k5","n1":...,"n1":...}: well-formed JSON, a member twice
    Files.write(state, bytes);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      assertThat(get(store, "k4")).isPresent();
      assertThatThrownBy(() -> get(store, "k5"))
          .isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json")
          .hasMessageContaining("document '[\"k5\"]' of collection 'items'");
    }
  }
}
