package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Cursor;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Promise 6: readers take no lock and never see half a commit, in this or another store. */
class ReadersDuringWritesTest {
  @TempDir
  Path dir;

  /** A state whose fields must always agree: any torn read would break value == copies. */
  record Pair(int value, List<Integer> copies, String pad) {}

  @Test
  void readersInOtherStoresSeeOnlyWholeCommits() throws Exception {
    LedgerOptions options = LedgerOptions.defaults().withCheckpointInterval(5)
        .withSegmentBytes(8192);
    int commits = 150;
    try (FileLedgerStore writerStore = FileLedgerStore.open(dir, options);
        FileLedgerStore readerStore = FileLedgerStore.open(dir, options)) {
      Ledger<Pair> writer = writerStore.ledger("root-1", Pair.class);
      writer.commit(0, new Pair(0, List.of(0, 0, 0), ""), EventDraft.of("v", Map.of("v", 0)));
      AtomicBoolean done = new AtomicBoolean();
      List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
      List<Thread> readers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Ledger<Pair> reader = (i == 0 ? writerStore : readerStore).ledger("root-1", Pair.class);
        Thread thread = new Thread(() -> {
          try {
            long lastRevision = 0;
            Cursor cursor = Cursor.START;
            long lastSequence = 0;
            while (!done.get()) {
              Versioned<Pair> seen = reader.load();
              Pair p = seen.state();
              assertThat(p.copies()).containsOnly(p.value());
              assertThat(seen.revision()).isEqualTo(p.value() + 1)
                  .isGreaterThanOrEqualTo(lastRevision);
              lastRevision = seen.revision();
              EventPage page = reader.events(cursor, 7);
              for (Event e : page.events()) {
                assertThat(e.sequence()).isEqualTo(++lastSequence);
                assertThat(e.payload().get("v").asInt()).isEqualTo(e.revision() - 1);
              }
              cursor = page.nextCursor();
            }
          } catch (Throwable e) {
            failures.add(e);
          }
        });
        readers.add(thread);
        thread.start();
      }
      for (int v = 1; v <= commits; v++) {
        writer.commit(v, new Pair(v, List.of(v, v, v), "x".repeat(v % 50)),
            EventDraft.of("v", Map.of("v", v)));
      }
      done.set(true);
      for (Thread thread : readers) {
        thread.join(30_000);
      }
      assertThat(failures).isEmpty();
      assertThat(readerStore.ledger("root-1", Pair.class).load().revision())
          .isEqualTo(commits + 1);
    }
  }
}
