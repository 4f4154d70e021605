package dev.ledger.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.fs.FileLedgerStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal line limit (two states and 64 payloads' worth) refuses the same commits on
 * PostgreSQL as on files: a commit of many events under every per-item limit whose line passes
 * it is refused and writes nothing; one whose cheap bound passes the limit but whose line does
 * not is accepted (the line is then encoded to measure it).
 */
class PostgresLineLimitTest {
  private static final LedgerOptions LIMITS = LedgerOptions.defaults().withLimits(1024, 256);

  @TempDir Path dir;

  @Test
  void theLineLimitRefusesWhatTheFileStoreRefuses() {
    try (LedgerStore postgres = PostgresLedgerStore.open(TestDatabase.dataSource(),
            TestDatabase.freshSchema(), LIMITS);
        LedgerStore files = FileLedgerStore.open(dir, LIMITS)) {
      for (LedgerStore store : List.of(postgres, files)) {
        Ledger<JsonNode> ledger = store.ledger("root-1", JsonNode.class);
        JsonNode state = JsonNodeFactory.instance.objectNode().put("s", "ok");
        // 100 payloads of ~230 bytes: about 40 KB of line against a limit of 22,528 bytes.
        assertThatThrownBy(() -> ledger.commit(0, state, drafts(100)))
            .as("%s", store).isInstanceOfSatisfying(LimitExceededException.class, e -> {
              assertThat(e.limit()).isEqualTo(2 * 1024 + 64 * 256 + 4096);
              assertThat(e.actual()).isGreaterThan(e.limit());
            }).hasMessageContaining("commit record");
        assertThat(ledger.find()).as("%s", store).isEmpty();
        // 40 of them: about 16 KB, under the limit, though the cheap bound is not.
        assertThat(ledger.commit(0, state, drafts(40)).events()).hasSize(40);
        assertThat(ledger.commit(1, state, drafts(1)).revision()).isEqualTo(2);
      }
    }
  }

  private static EventDraft[] drafts(int n) {
    List<EventDraft> drafts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      drafts.add(EventDraft.of("e", Map.of("p", "y".repeat(220))));
    }
    return drafts.toArray(EventDraft[]::new);
  }
}
