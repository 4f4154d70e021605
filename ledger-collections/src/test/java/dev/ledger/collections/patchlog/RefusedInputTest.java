package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.DuplicateKeyException;
import dev.ledger.collections.InvalidQueryException;
import dev.ledger.collections.InvalidValueException;
import dev.ledger.collections.Query;
import dev.ledger.collections.Queue;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.UnknownCollectionException;
import dev.ledger.core.InvalidIdentifierException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.function.Function;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input on a file store: an unknown or mistyped collection, a bad field or value, an
 * oversized document, a duplicate or missing key, a malformed query, a bad partition or
 * command id. Each is refused with its typed error and changes nothing on disk: the store
 * directory's tree, every file's bytes and modification time, and every directory's
 * modification time (which moves when a file is created and deleted again) are the same
 * before and after, even when the callback wrote other things before the refusal. The
 * contract suite checks the same refusals by revision on every store; this test checks the
 * bytes.
 */
class RefusedInputTest {
  /**
   * A document.
   *
   * @param id the key
   * @param status a field
   * @param size a number, or null
   * @param note free text, or null
   */
  public record Job(String id, String status, Integer size, String note) {}

  /**
   * Another document type, for mistyped calls.
   *
   * @param name a field
   */
  public record Other(String name) {}

  private static final Schema SCHEMA = Schema.builder()
      .collection("jobs", Job.class, List.of("id"), List.of("status"))
      .queue("pending", String.class)
      .keyValue("counters", String.class, Long.class)
      .keyValue("flags", String.class, Boolean.class)
      .keyValue("ratios", String.class, Double.class)
      .build();

  @TempDir
  Path dir;

  private FileLedgerStore store;
  private PatchLogCollectionStore db;

  @BeforeEach
  void openWithData() {
    store = FileLedgerStore.open(dir.resolve("store"), LedgerOptions.defaults()
        .withClock(Clock.fixed(Instant.parse("2026-11-30T12:00:00Z"), ZoneOffset.UTC)));
    db = PatchLogCollectionStore.on(store, SCHEMA,
        CollectionOptions.defaults().withMaxDocumentBytes(300));
    db.execute("p", tx -> {
      jobs(tx).insert(List.of(new Job("a", "queued", 1, null)));
      tx.queue("pending", String.class).enqueue(List.of("a"));
      tx.keyValue("counters", String.class, Long.class).inc("n", 1L);
      tx.keyValue("flags", String.class, Boolean.class).set("on", true);
      return null;
    });
  }

  @AfterEach
  void close() {
    store.close();
  }

  private static Collection<Job> jobs(Transaction tx) {
    return tx.collection("jobs", Job.class);
  }

  /** A write the callback makes before the bad call, which must not survive it either. */
  private static void goodWrites(Transaction tx) {
    jobs(tx).insert(List.of(new Job("fine", "queued", 2, "written before the refusal")));
    tx.queue("pending", String.class).enqueue(List.of("fine"));
    tx.keyValue("counters", String.class, Long.class).inc("n", 5L);
  }

  private DirectorySnapshot tree() throws IOException {
    return DirectorySnapshot.of(store.base(), DirectorySnapshot.Options.of(Aspect.CONTENT,
        Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES));
  }

  /** Asserts that {@code call} throws {@code type} and that the store's files did not move. */
  private void refused(ThrowingCallable call, Class<? extends Throwable> type, String named)
      throws IOException {
    DirectorySnapshot before = tree();
    assertThatThrownBy(call).isInstanceOf(type).hasMessageContaining(named);
    assertThat(before.diff(tree())).as("what the refused call changed on disk").isEmpty();
  }

  private void refusedTx(Function<Transaction, Object> work, Class<? extends Throwable> type,
      String named) throws IOException {
    refused(() -> db.execute("p", tx -> {
      goodWrites(tx);
      return work.apply(tx);
    }), type, named);
    refused(() -> db.execute("p", "command-1", tx -> {
      goodWrites(tx);
      return work.apply(tx);
    }), type, named);
  }

  @Test
  void unknownOrMistypedNamesWriteNothing() throws IOException {
    refusedTx(tx -> tx.collection("nosuch", Job.class), UnknownCollectionException.class,
        "nosuch");
    refusedTx(tx -> tx.collection("jobs", Other.class), UnknownCollectionException.class,
        "jobs");
    refusedTx(tx -> tx.queue("jobs", String.class), UnknownCollectionException.class, "jobs");
    refusedTx(tx -> tx.keyValue("counters", String.class, Integer.class),
        UnknownCollectionException.class, "counters");
    refused(() -> db.read("p", v -> v.collection("nosuch", Job.class)),
        UnknownCollectionException.class, "nosuch");
  }

  @Test
  @SuppressWarnings({"unchecked", "rawtypes"})
  void badFieldsAndValuesWriteNothing() throws IOException {
    refusedTx(tx -> {
      jobs(tx).insert(List.of(new Job(null, "queued", 1, null)));
      return null;
    }, InvalidValueException.class, "id");
    refusedTx(tx -> {
      ((Collection) jobs(tx)).insert(List.of(new Job("ok", "q", 1, null), new Other("x")));
      return null;
    }, InvalidValueException.class, "jobs");
    refusedTx(tx -> {
      ((Queue) tx.queue("pending", String.class)).enqueue(List.of("ok", 42));
      return null;
    }, InvalidValueException.class, "pending");
    refusedTx(tx -> tx.keyValue("flags", String.class, Boolean.class).inc("on", true),
        InvalidValueException.class, "flags");
    // JSON has no infinities and no NaN: such a number is refused, never written or added.
    for (double bad : new double[] {Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.NaN}) {
      refusedTx(tx -> {
        tx.keyValue("ratios", String.class, Double.class).set("r", bad);
        return null;
      }, InvalidValueException.class, "ratios");
      refusedTx(tx -> tx.keyValue("ratios", String.class, Double.class).inc("r", bad),
          InvalidValueException.class, "ratios");
      refusedTx(tx -> tx.keyValue("ratios", String.class, Double.class).chmax("r", bad),
          InvalidValueException.class, "ratios");
    }
    // An update naming a field the type lacks is refused as a malformed field list.
    refusedTx(tx -> jobs(tx).update(List.of(new Job("a", "done", 1, null)), List.of("nosuch")),
        InvalidQueryException.class, "nosuch");
  }

  @Test
  void oversizedDocumentsWriteNothing() throws IOException {
    refusedTx(tx -> {
      jobs(tx).insert(List.of(new Job("big", "queued", 1, "x".repeat(400))));
      return null;
    }, LimitExceededException.class, "jobs");
    refusedTx(tx -> {
      jobs(tx).update(List.of(new Job("a", "queued", 1, "y".repeat(400))));
      return null;
    }, LimitExceededException.class, "jobs");
    refusedTx(tx -> {
      tx.queue("pending", String.class).enqueue(List.of("z".repeat(400)));
      return null;
    }, LimitExceededException.class, "pending");
  }

  @Test
  void duplicateAndMissingKeysWriteNothing() throws IOException {
    refusedTx(tx -> {
      jobs(tx).insert(List.of(new Job("new", "queued", 1, null),
          new Job("a", "queued", 1, null)));
      return null;
    }, DuplicateKeyException.class, "jobs");
    refusedTx(tx -> jobs(tx).update(List.of(new Job("missing", "done", 1, null))),
        DocumentNotFoundException.class, "missing");
  }

  @Test
  void malformedQueriesWriteNothing() throws IOException {
    refusedTx(tx -> jobs(tx).query(Query.builder().exact("nosuch", 1).build()),
        InvalidQueryException.class, "nosuch");
    refusedTx(tx -> jobs(tx).query(Query.builder().exact("size", "big").build()),
        InvalidQueryException.class, "size");
    refusedTx(tx -> jobs(tx).query(Query.builder().exact("size", Double.NaN).build()),
        InvalidQueryException.class, "size");
  }

  @Test
  void badPartitionAndCommandIdsWriteNothing() throws IOException {
    for (String bad : List.of("", "../p", "a/b", ".", "x".repeat(300), "nul")) {
      refused(() -> db.execute(bad, tx -> {
        goodWrites(tx);
        return null;
      }), InvalidIdentifierException.class, "");
      refused(() -> db.read(bad, v -> v.collection("jobs", Job.class).size()),
          InvalidIdentifierException.class, "");
    }
    for (String bad : List.of("", "c".repeat(201))) {
      refused(() -> db.execute("p", bad, tx -> {
        goodWrites(tx);
        return null;
      }), IllegalArgumentException.class, "command id");
    }
  }

  @Test
  void aRefusalOnANewPartitionCreatesNoLedger() throws IOException {
    refused(() -> db.execute("fresh", tx -> {
      goodWrites(tx);
      return tx.collection("nosuch", Job.class);
    }), UnknownCollectionException.class, "nosuch");
    assertThat(store.head("fresh")).isEmpty();
  }
}
