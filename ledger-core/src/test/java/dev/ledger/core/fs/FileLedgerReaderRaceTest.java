package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promise 6 against a busy writer: readers take no lock, so they meet the journal's tail
 * while the writer appends to it, and segments appear behind them. Whatever they read, they
 * must see whole commits only (the state of the revision they report, gapless events) and
 * never a false report of damage.
 *
 * <p>Each reader uses its own store instance on the directory, as another process would,
 * so it reads the files rather than the writer's published state. The writer skips
 * {@code force} to commit fast, and its records of ~3 KiB often cross a page boundary, which
 * is when a reader can see an append half done. Runs 4 s times {@code ledger.torture.scale}.
 */
class FileLedgerReaderRaceTest {
  private static final int READERS = 2;
  private static final long RUN_NANOS = 4_000_000_000L;
  private static final String PAD = "p".repeat(3000);

  @TempDir
  Path dir;

  @Test
  void readersRacingAnAppendingWriterSeeWholeCommitsAndNoFalseDamage() throws Exception {
    LedgerOptions options = LedgerOptions.defaults()
        .withDurability(Durability.UNSAFE_NO_SYNC)
        .withCheckpointInterval(5)
        .withSegmentBytes(4096);
    Path base = dir.resolve("store");
    long deadline = System.nanoTime() + RUN_NANOS * Integer.getInteger("ledger.torture.scale", 1);
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    AtomicLong reads = new AtomicLong();
    long revision;
    try (FileLedgerStore store = FileLedgerStore.open(base, options)) {
      Ledger<JsonNode> writer = store.ledger("raced", JsonNode.class);
      revision = writer.commit(Ledger.NO_REVISION, state(1), event(1)).revision();
      List<Thread> readers = new ArrayList<>();
      for (int r = 0; r < READERS; r++) {
        Thread reader = new Thread(() -> read(base, options, deadline, reads, failures),
            "reader-" + r);
        reader.start();
        readers.add(reader);
      }
      while (System.nanoTime() < deadline && failures.isEmpty()) {
        revision = writer.commit(revision, state(revision + 1), event(revision + 1)).revision();
      }
      for (Thread reader : readers) {
        reader.join(60_000);
        assertThat(reader.isAlive()).as("%s still running", reader.getName()).isFalse();
      }
    }
    assertThat(failures).as("reader failures after %s reads and %s commits", reads, revision)
        .isEmpty();
    assertThat(reads.get()).isPositive();
  }

  private static ObjectNode state(long revision) {
    return JsonNodeFactory.instance.objectNode().put("revision", revision)
        .put("pad", PAD + revision);
  }

  private static EventDraft event(long revision) {
    return EventDraft.of("written", Map.of("revision", revision, "pad", PAD));
  }

  private static void read(Path base, LedgerOptions options, long deadline, AtomicLong reads,
      List<Throwable> failures) {
    try (FileLedgerStore store = FileLedgerStore.open(base, options)) {
      Ledger<JsonNode> ledger = store.ledger("raced", JsonNode.class);
      Cursor cursor = Cursor.START;
      long lastSequence = 0;
      long lastRevision = 0;
      while (System.nanoTime() < deadline && failures.isEmpty()) {
        Versioned<JsonNode> current = ledger.load();
        JsonNode loaded = current.state();
        assertThat(loaded.get("revision").asLong() == current.revision()
            && loaded.get("pad").asText().equals(PAD + current.revision()))
            .as("state loaded with revision %s is that revision's", current.revision()).isTrue();
        assertThat(current.revision()).isGreaterThanOrEqualTo(lastRevision);
        lastRevision = current.revision();
        EventPage page = ledger.events(cursor, 100);
        for (Event event : page.events()) {
          assertThat(event.sequence()).isEqualTo(lastSequence + 1);
          assertThat(event.revision()).isEqualTo(event.sequence());
          lastSequence = event.sequence();
        }
        cursor = page.nextCursor();
        reads.incrementAndGet();
      }
    } catch (Throwable e) {
      failures.add(e);
    }
  }
}
