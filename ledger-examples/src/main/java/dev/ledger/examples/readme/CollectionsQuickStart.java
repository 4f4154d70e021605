package dev.ledger.examples.readme;

// README:begin collections
import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Rollouts, a queue of pending ids and a counter in one partition, changed together. */
public class CollectionsQuickStart {
  /** A rollout, keyed by its id; its status is indexed. */
  public record Rollout(String rolloutId, String status, int attempts) {}

  /** Takes a store directory, or makes a new temporary one. */
  public static void main(String[] args) throws Exception {
    Path dir = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("collections");
    Schema schema = Schema.builder()
        .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
        .queue("pending", String.class)
        .keyValue("counters", String.class, Long.class)
        .build();
    try (FileLedgerStore store = FileLedgerStore.open(dir)) {
      CollectionStore collections = PatchLogCollectionStore.on(store, schema);
      // One transaction: two rollouts, their places in the queue and a counter, or nothing.
      collections.execute("run-1", tx -> {
        tx.collection("rollouts", Rollout.class).insert(List.of(
            new Rollout("r-1", "queuing", 0), new Rollout("r-2", "queuing", 0)));
        tx.queue("pending", String.class).enqueue(List.of("r-1", "r-2"));
        tx.keyValue("counters", String.class, Long.class).inc("rollouts", 2L);
        return null;
      });
      // A worker claims the oldest; the command id makes a retry after a crash safe.
      String claimed = collections.execute("run-1", "claim-1", tx -> {
        String id = tx.queue("pending", String.class).dequeue(1).get(0);
        tx.collection("rollouts", Rollout.class).update(List.of(new Rollout(id, "running", 1)));
        return id;
      }).value();
      System.out.println("claimed " + claimed);
      collections.read("run-1", view -> {
        QueryResult<Rollout> running = view.collection("rollouts", Rollout.class)
            .query(Query.builder().exact("status", "running").build());
        System.out.println("running " + running.items() + ", total " + running.total());
        System.out.println("pending " + view.queue("pending", String.class).peek(10));
        System.out.println("counted " + view.keyValue("counters", String.class, Long.class)
            .get("rollouts").orElse(0L));
        return null;
      });
      // The change feed: one event per write, in the partition's ledger.
      for (Event e : store.ledger("run-1", JsonNode.class).events(Cursor.START, 100).events()) {
        System.out.println(e.revision() + " " + e.type() + " " + e.payload());
      }
    }
  }
}
// README:end
