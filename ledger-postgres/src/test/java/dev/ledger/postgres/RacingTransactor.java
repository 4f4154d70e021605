package dev.ledger.postgres;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.Schema;
import dev.ledger.collections.TransactionResult;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerOptions;
import dev.ledger.testing.base.ChildJvm;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Child main for {@link PostgresCollectionRaceTest}: runs {@code count} collection
 * transactions on one partition through its own store, racing the other children. Step
 * {@code k} of child {@code c}, under the command id {@code c-k}: inserts the entry
 * {@code c-k}, dequeues one work item and records it in the entry, increments the counter
 * {@code total} by 1 and the counter {@code c} by {@code k % 3 + 1}. After each acknowledged
 * transaction it appends {@code ACK <k> <revision> <item>} to its ack file and forces it.
 *
 * <p>Arguments: JDBC URL, schema, partition, child name, count, ack file.
 */
public final class RacingTransactor {
  /** Work items the parent enqueues before the race. */
  static final String QUEUE = "work";
  /** An entry: what step {@code id} took from the queue. */
  public record Entry(String id, String writer, String took) {}

  /** The schema both the children and the parent open. */
  static final Schema SCHEMA = Schema.builder()
      .collection("entries", Entry.class, List.of("id"), List.of("writer"))
      .queue(QUEUE, String.class)
      .keyValue("counters", String.class, Long.class)
      .build();

  private RacingTransactor() {}

  /** Options for a race: many attempts, since every child conflicts with every other. */
  static CollectionOptions options() {
    return CollectionOptions.defaults().withAttempts(10_000, Duration.ofMillis(1));
  }

  public static void main(String[] args) throws IOException {
    ChildJvm.exitWhenParentGoes();
    String child = args[3];
    int count = Integer.parseInt(args[4]);
    LedgerOptions ledgerOptions = LedgerOptions.defaults()
        .withLockTimeout(Duration.ofSeconds(30));
    try (PostgresLedgerStore store = PostgresLedgerStore.connect(args[0], "postgres", null,
            args[1], ledgerOptions);
        FileOutputStream acks = new FileOutputStream(Path.of(args[5]).toFile(), true)) {
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, SCHEMA, options());
      for (int k = 0; k < count; k++) {
        int step = k;
        TransactionResult<String> result = db.execute(args[2], child + "-" + step, tx -> {
          List<String> took = tx.queue(QUEUE, String.class).dequeue(1);
          String item = took.isEmpty() ? "-" : took.get(0);
          tx.collection("entries", Entry.class)
              .insert(List.of(new Entry(child + "-" + step, child, item)));
          var counters = tx.keyValue("counters", String.class, Long.class);
          counters.inc("total", 1L);
          counters.inc(child, (long) (step % 3 + 1));
          return item;
        });
        if (result.replayed()) {
          throw new IllegalStateException("step " + step + " of " + child + " replayed");
        }
        acks.write(("ACK " + step + " " + result.revision() + " " + result.value() + "\n")
            .getBytes(StandardCharsets.UTF_8));
        acks.getFD().sync();
      }
    } catch (RuntimeException | Error e) {
      e.printStackTrace();
      System.exit(1);
    }
    System.out.println("DONE " + child);
  }
}
