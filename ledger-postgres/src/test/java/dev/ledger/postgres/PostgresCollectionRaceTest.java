package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.Key;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.CommitResult;
import dev.ledger.core.LedgerOptions;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two JVMs ({@link RacingTransactor}) race collection transactions on one partition through
 * the server, each acknowledging what committed. Afterwards: every acknowledged transaction
 * is present at the revision it was acknowledged with, each revision has one winner, no work
 * item was taken twice and none was lost, and the counters equal the acknowledged increments.
 */
class PostgresCollectionRaceTest {
  private static final int CHILDREN = 2;
  private static final int STEPS = 40 * Integer.getInteger("ledger.torture.scale", 1);
  private static final String PARTITION = "race";

  @TempDir Path dir;

  @Test
  void racingProcessesLoseNoAcknowledgedTransactionAndTakeNoItemTwice() throws Exception {
    String schema = TestDatabase.freshSchema();
    int items = CHILDREN * STEPS + 5;
    List<String> work = IntStream.range(0, items).mapToObj(i -> "item-" + i).toList();
    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(),
        schema, LedgerOptions.defaults())) {
      PatchLogCollectionStore.on(store, RacingTransactor.SCHEMA).execute(PARTITION, tx -> {
        tx.queue(RacingTransactor.QUEUE, String.class).enqueue(work);
        return null;
      });
    }
    List<ChildJvm> children = new ArrayList<>();
    try {
      for (int i = 0; i < CHILDREN; i++) {
        children.add(ChildJvm.start(RacingTransactor.class, TestDatabase.jdbcUrl(), schema,
            PARTITION, "c" + i, String.valueOf(STEPS), dir.resolve("acks-c" + i).toString()));
      }
      for (ChildJvm child : children) {
        child.awaitSuccess(Duration.ofMinutes(3));
      }
    } finally {
      children.forEach(ChildJvm::close);
    }

    Map<Long, String> winners = new HashMap<>();
    Map<String, String> tookByStep = new HashMap<>();
    Map<String, Long> increments = new HashMap<>();
    for (int i = 0; i < CHILDREN; i++) {
      String child = "c" + i;
      List<String> lines = Files.readAllLines(dir.resolve("acks-" + child));
      assertThat(lines).as("acknowledgements of %s", child).hasSize(STEPS);
      for (String line : lines) {
        String[] f = line.split(" ");
        String id = child + "-" + f[1];
        String previous = winners.put(Long.parseLong(f[2]), id);
        assertThat(previous).as("revision %s acknowledged to %s and %s", f[2], previous, id)
            .isNull();
        tookByStep.put(id, f[3]);
        increments.merge(child, (long) (Integer.parseInt(f[1]) % 3 + 1), Long::sum);
      }
    }

    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(),
        schema, LedgerOptions.defaults())) {
      PatchLogCollectionStore db = PatchLogCollectionStore.on(store, RacingTransactor.SCHEMA);
      db.read(PARTITION, view -> {
        assertThat(view.revision()).isEqualTo(1 + CHILDREN * STEPS);
        var entries = view.collection("entries", RacingTransactor.Entry.class);
        assertThat(entries.size()).isEqualTo(CHILDREN * STEPS);
        Set<String> taken = new HashSet<>();
        for (Map.Entry<String, String> ack : tookByStep.entrySet()) {
          Optional<RacingTransactor.Entry> entry = entries.get(Key.of(ack.getKey()));
          assertThat(entry).as("acknowledged step %s", ack.getKey()).isPresent();
          assertThat(entry.get().took()).isEqualTo(ack.getValue());
          assertThat(taken.add(ack.getValue())).as("item %s taken twice", ack.getValue())
              .isTrue();
        }
        var queue = view.queue(RacingTransactor.QUEUE, String.class);
        List<String> left = queue.peek(items);
        assertThat(left).doesNotContainAnyElementsOf(taken);
        assertThat(left.size() + taken.size()).as("items taken or left").isEqualTo(items);
        var counters = view.keyValue("counters", String.class, Long.class);
        assertThat(counters.get("total")).contains((long) CHILDREN * STEPS);
        increments.forEach((child, sum) ->
            assertThat(counters.get(child)).as("counter of %s", child).contains(sum));
        return null;
      });
      for (Map.Entry<Long, String> winner : winners.entrySet()) {
        Optional<CommitResult> recorded = store.ledger(PARTITION,
            com.fasterxml.jackson.databind.JsonNode.class)
            .command(winner.getValue());
        assertThat(recorded).as("command %s", winner.getValue()).isPresent();
        assertThat(recorded.get().revision()).as("revision of command %s", winner.getValue())
            .isEqualTo(winner.getKey());
      }
    }
    System.out.printf("collection race on PostgreSQL: %d processes, %d acknowledged "
        + "transactions, one winner per revision%n", CHILDREN, CHILDREN * STEPS);
  }
}
