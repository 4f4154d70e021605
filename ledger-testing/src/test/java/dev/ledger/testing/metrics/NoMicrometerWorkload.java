package dev.ledger.testing.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.CleanupMode;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.artifacts.memory.InMemoryArtifactStore;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.Change;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StateType;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Every kind of store doing what its metrics would record, with no registry: run by
 * {@link NoMicrometerTest} in a class loader that has no Micrometer class, so that any
 * Micrometer class this needs fails it with {@link NoClassDefFoundError}.
 */
public final class NoMicrometerWorkload {
  private NoMicrometerWorkload() {}

  /**
   * Runs the workload.
   *
   * @param dir an empty directory for the file stores
   * @return a summary of what was done, for the test to check
   * @throws InterruptedException if interrupted while following
   */
  public static String run(Path dir) throws InterruptedException {
    LedgerOptions options = LedgerOptions.defaults().withCheckpointInterval(2)
        .withOpenWriterLimit(1);
    StringBuilder summary = new StringBuilder();
    try (FileLedgerStore files = FileLedgerStore.open(dir.resolve("ledgers"), options);
        InMemoryLedgerStore memory = InMemoryLedgerStore.create(options)) {
      summary.append(ledgers(files)).append(' ').append(ledgers(memory)).append(' ');
      summary.append(collections(PatchLogCollectionStore.on(files, schema()))).append(' ');
      summary.append(collections(PatchLogCollectionStore.on(memory, schema()))).append(' ');
    }
    try (FileArtifactStore files = FileArtifactStore.open(dir.resolve("artifacts"));
        InMemoryArtifactStore memory = InMemoryArtifactStore.create()) {
      summary.append(artifacts(files)).append(' ').append(artifacts(memory));
    }
    return summary.toString();
  }

  private static String ledgers(LedgerStore store) throws InterruptedException {
    StateType<JsonNode> type = StateType.of(JsonNode.class);
    Ledger<JsonNode> a = store.ledger("a", type);
    JsonNode one = JsonNodeFactory.instance.numberNode(1);
    a.commit(Ledger.NO_REVISION, one, EventDraft.of("created", one).withCommandId("c"));
    a.commit(Ledger.NO_REVISION, one, EventDraft.of("created", one).withCommandId("c"));
    a.update(state -> Change.to(JsonNodeFactory.instance.numberNode(state.asInt() + 1)));
    store.ledger("b", type).commit(Ledger.NO_REVISION, one);
    int events;
    try (EventFollower follower = a.follow(Cursor.START)) {
      events = follower.next(Duration.ofSeconds(10)).isPresent() ? 1 : 0;
    }
    return "revision=" + a.load().revision() + ",events=" + events + ",page="
        + a.events(Cursor.START, 10).events().size();
  }

  /**
   * A document.
   *
   * @param id its key
   */
  public record Doc(String id) {}

  private static Schema schema() {
    return Schema.builder().collection("docs", Doc.class, List.of("id"))
        .queue("q", Integer.class).build();
  }

  private static String collections(CollectionStore store) {
    store.execute("p", tx -> {
      tx.collection("docs", Doc.class).insert(List.of(new Doc("x")));
      tx.queue("q", Integer.class).enqueue(List.of(1, 2));
      return null;
    });
    List<Integer> taken = store.execute("p", tx -> tx.queue("q", Integer.class).dequeue(1));
    return "dequeued=" + taken;
  }

  private static String artifacts(ArtifactStore store) {
    ContentId blob = store.blobs().put(new byte[] {1, 2, 3});
    store.blobs().put(new byte[] {4});
    AttemptSubmission submission = AttemptSubmission.of("done",
        List.of(ArtifactRef.ofBlob("out", "text/plain", blob)), List.of());
    store.freeze("root", "attempt", submission);
    store.freeze("root", "attempt", submission);
    return "removed=" + store.collectGarbage(Duration.ZERO, CleanupMode.DELETE).removed().size();
  }
}
