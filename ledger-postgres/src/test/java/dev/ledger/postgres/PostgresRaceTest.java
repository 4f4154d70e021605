package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.testing.base.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several JVMs race commits on one ledger through the server: exactly one winner per
 * revision, and every acknowledged commit is in the ledger, at the revision it was
 * acknowledged with.
 */
class PostgresRaceTest {
  private static final int CHILDREN = 4;
  private static final int COMMITS = 25 * Integer.getInteger("ledger.torture.scale", 1);

  @TempDir Path dir;

  @Test
  void racingProcessesGetOneWinnerPerRevisionAndLoseNoAcknowledgedCommit() throws Exception {
    String schema = TestDatabase.freshSchema();
    // The schema exists before the children race to open it.
    PostgresLedgerStore.open(TestDatabase.dataSource(), schema, LedgerOptions.defaults())
        .close();
    List<ChildJvm> children = new ArrayList<>();
    try {
      for (int i = 0; i < CHILDREN; i++) {
        children.add(ChildJvm.start(RacingCommitter.class, TestDatabase.jdbcUrl(), schema,
            "race", "c" + i, String.valueOf(COMMITS), dir.resolve("acks-c" + i).toString()));
      }
      for (ChildJvm child : children) {
        child.awaitSuccess(Duration.ofMinutes(3));
      }
    } finally {
      children.forEach(ChildJvm::close);
    }

    Map<Long, String> acked = new HashMap<>();
    for (int i = 0; i < CHILDREN; i++) {
      for (String line : Files.readAllLines(dir.resolve("acks-c" + i))) {
        String[] f = line.split(" ");
        String previous = acked.put(Long.parseLong(f[1]), f[2] + "-" + f[3]);
        assertThat(previous).as("revision %s acknowledged twice", f[1]).isNull();
      }
    }
    assertThat(acked).hasSize(CHILDREN * COMMITS);

    try (PostgresLedgerStore store = PostgresLedgerStore.open(TestDatabase.dataSource(), schema,
        LedgerOptions.defaults())) {
      Ledger<RacingCommitter.Tally> ledger = store.ledger("race", RacingCommitter.Tally.class);
      assertThat(ledger.load().revision()).isEqualTo(CHILDREN * COMMITS);
      assertThat(ledger.load().state().commits()).isEqualTo(CHILDREN * COMMITS);
      List<Event> events;
      try (Stream<Event> all = ledger.replay(Cursor.START)) {
        events = all.toList();
      }
      assertThat(events).hasSize(CHILDREN * COMMITS);
      for (int i = 0; i < events.size(); i++) {
        Event e = events.get(i);
        assertThat(e.sequence()).isEqualTo(i + 1);
        assertThat(e.revision()).isEqualTo(i + 1);
        String winner = e.payload().get("child").asText() + "-" + e.payload().get("k").asInt();
        assertThat(acked.get(e.revision())).as("winner of revision %s", e.revision())
            .isEqualTo(winner);
      }
    }
  }
}
