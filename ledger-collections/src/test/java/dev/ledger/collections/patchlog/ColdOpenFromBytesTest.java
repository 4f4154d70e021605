package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.VerifyReport;
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

  /**
   * Partial updates after the checkpoint (no checkpoint after them): {@code k<i>} for i
   * divisible by 3 gets {@code n1 = "upd <i> <round>"} in each of {@code rounds} commits, and
   * those divisible by 6 status {@code "moved"} too; returns the journal segment's path.
   */
  private Path tail(int rounds) throws Exception {
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA,
          CollectionOptions.defaults().withCheckpoints(1000, Long.MAX_VALUE / 4));
      for (int r = 0; r < rounds; r++) {
        int round = r;
        store.execute("p", tx -> {
          List<Item> items = new ArrayList<>();
          for (int i = 0; i < DOCS; i += 3) {
            items.add(new Item("k" + i, "upd " + i + " " + round, "two \"\\ " + i,
                i % 6 == 0 ? "moved" : "s" + i % 7));
          }
          tx.collection("items", Item.class).update(items, List.of("n1", "status"));
          return null;
        });
      }
    }
    try (var segments = Files.list(dir.resolve("ledgers").resolve("p").resolve("journal"))) {
      return segments.filter(f -> f.toString().endsWith(".jsonl")).sorted()
          .reduce((a, b) -> b).orElseThrow();
    }
  }

  private static Item expected(int i, int rounds) {
    if (i % 3 != 0) {
      return new Item("k" + i, "one é " + i, "two \"\\ " + i, "s" + i % 7);
    }
    return new Item("k" + i, "upd " + i + " " + (rounds - 1), "two \"\\ " + i,
        i % 6 == 0 ? "moved" : "s" + i % 7);
  }

  /**
   * A cold open folds partial updates of the journal after the checkpoint onto documents
   * still as the checkpoint's bytes (the patches wait with them); reads from several
   * threads see the updated documents, and the index the indexed field's new values.
   */
  @Test
  void partialUpdatesAfterTheCheckpointAreSeenByReadsFromSeveralThreads() throws Exception {
    partialUpdatesSeen(3);
  }

  /** As above, more than {@link DocTable#MAX_PENDING} to a document: it is parsed at open. */
  @Test
  void manyPartialUpdatesOfOneDocumentAfterTheCheckpointAreSeen() throws Exception {
    partialUpdatesSeen(DocTable.MAX_PENDING + 3);
  }

  private void partialUpdatesSeen(int rounds) throws Exception {
    fill();
    tail(rounds);
    for (int pass = 0; pass < 2; pass++) {
      // Pass 1: a query by the index first, before any document is read.
      boolean queryFirst = pass == 1;
      try (FileLedgerStore files = FileLedgerStore.open(dir)) {
        CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
        if (queryFirst) {
          assertThat(store.read("p", v -> v.collection("items", Item.class)
              .query(Query.builder().exact("status", "moved").build())).items())
              .hasSize((DOCS + 5) / 6);
        }
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
          List<Future<Integer>> found = new ArrayList<>();
          for (int t = 0; t < 4; t++) {
            found.add(pool.submit(() -> {
              int n = 0;
              for (int i = 0; i < DOCS; i++) {
                assertThat(get(store, "k" + i).orElseThrow()).isEqualTo(expected(i, rounds));
                n++;
              }
              n += store.read("p", v -> v.collection("items", Item.class)
                  .query(Query.builder().exact("status", "moved").build())).items().size();
              return n;
            }));
          }
          for (Future<Integer> f : found) {
            assertThat(f.get()).isEqualTo(DOCS + (DOCS + 5) / 6);
          }
        } finally {
          pool.shutdownNow();
        }
      }
    }
  }

  /**
   * A checkpoint written right after a cold open, while documents still wait with their
   * checkpoint bytes and pending partial updates (none of them read): the new checkpoint holds
   * the updated documents, not the old bytes, as the next cold open and {@code verify} show.
   */
  @Test
  void aCheckpointWrittenWhilePartialUpdatesWaitHoldsTheUpdatedDocuments() throws Exception {
    fill();
    tail(3);
    Path state = dir.resolve("ledgers").resolve("p").resolve("state.json");
    byte[] before = Files.readAllBytes(state);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      // A checkpoint after every commit: the one below writes the cold-opened view.
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA,
          CollectionOptions.defaults().withCheckpoints(0.000_001, 0));
      store.execute("p", tx -> {
        tx.collection("items", Item.class).update(List.of(new Item("k1", "one é 1", "new", "s1")),
            List.of("n2"));
        return null;
      });
    }
    assertThat(Files.readAllBytes(state)).isNotEqualTo(before);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      VerifyReport report = files.verify();
      assertThat(report.clean()).as("%s", report).isTrue();
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      for (int i = 0; i < DOCS; i++) {
        Item want = i == 1 ? new Item("k1", "one é 1", "new", "s1") : expected(i, 3);
        assertThat(get(store, "k" + i)).as("k" + i).contains(want);
      }
    }
  }

  /**
   * A damaged record of the journal after the checkpoint (not the last one, which would be a
   * torn tail) is refused at the cold open, naming the segment file and the record's offset.
   */
  @Test
  void aDamagedRecordAfterTheCheckpointIsRefusedAtOpenNamingTheFileAndOffset()
      throws Exception {
    fill();
    Path segment = tail(3);
    byte[] bytes = Files.readAllBytes(segment);
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int last = text.lastIndexOf('\n', text.length() - 2);
    int middle = text.lastIndexOf('\n', last - 1);
    int record = text.lastIndexOf('\n', middle - 1) + 1;
    int at = text.indexOf("upd ", record);
    assertThat(at).isBetween(record, middle);
    bytes[at] = 'U'; // the checksum no longer matches
    Files.write(segment, bytes);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      assertThatThrownBy(() -> get(store, "k0"))
          .isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining(segment.getFileName().toString())
          .hasMessageContaining("offset " + record);
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

  @Test
  void aProjectionOfAColdPartitionIsWhatItsDocumentsHold() {
    fill();
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      List<String> projected = store.read("p", v -> {
        List<String> out = new ArrayList<>();
        v.collection("items", Item.class).project(List.of("n2", "id"),
            node -> out.add(node.get("id").asText() + "|" + node.get("n2").asText() + "|"
                + node.size()));
        return out;
      });
      assertThat(projected).hasSize(DOCS);
      for (int i = 0; i < DOCS; i++) {
        assertThat(projected.get(i)).isEqualTo("k" + i + "|two \"\\ " + i + "|2");
      }
    }
  }

  @Test
  void aProjectionRefusesADocumentWithAMemberTwiceEvenWhenThatMemberIsNotProjected()
      throws Exception {
    Path state = fill();
    byte[] bytes = Files.readAllBytes(state);
    String text = new String(bytes, StandardCharsets.ISO_8859_1);
    int doc = text.indexOf("\"id\":\"k5\"");
    int n2 = text.indexOf("\"n2\"", doc);
    bytes[n2 + 2] = '1'; // n1 twice; the projection asks for id and status only
    Files.write(state, bytes);
    try (FileLedgerStore files = FileLedgerStore.open(dir)) {
      CollectionStore store = PatchLogCollectionStore.on(files, SCHEMA);
      assertThatThrownBy(() -> store.read("p", v -> {
        v.collection("items", Item.class).project(List.of("id", "status"), node -> { });
        return null;
      })).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("state.json")
          .hasMessageContaining("document '[\"k5\"]' of collection 'items'");
    }
  }
}
