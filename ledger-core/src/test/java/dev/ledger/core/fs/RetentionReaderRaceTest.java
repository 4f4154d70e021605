package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.HistoryTruncatedException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerHead;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.RetentionPolicy;
import dev.ledger.core.Versioned;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lock-free readers of another store (as another process would read) racing a writer that
 * commits and applies retention after every commit, so that segments disappear under the
 * readers: a load never goes back or errs, a page from START always starts at a retained
 * event and is gapless, and a stored cursor either reads on or gets
 * {@link HistoryTruncatedException}, never another error and never a gap.
 */
class RetentionReaderRaceTest {
  @TempDir
  Path dir;

  record Step(long n, String pad) {}

  @Test
  void readersOfAnotherStoreNeverErrOrGoBackWhileSegmentsAreRemoved() throws Exception {
    LedgerOptions options = LedgerOptions.defaults().withSegmentBytes(4096)
        .withCheckpointInterval(4);
    int commits = 300 * Integer.getInteger("ledger.torture.scale", 1);
    String pad = "z".repeat(300);
    AtomicLong acked = new AtomicLong();
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    AtomicLong truncations = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    Path base = dir.resolve("store");
    try (FileLedgerStore writerStore = FileLedgerStore.open(base, options);
        FileLedgerStore readerStore = FileLedgerStore.open(base, options)) {
      Ledger<Step> writer = writerStore.ledger("race", Step.class);
      writer.commit(0, new Step(1, pad), EventDraft.of("s", Map.of("n", 1)));
      acked.set(1);
      List<Thread> readers = new ArrayList<>();
      readers.add(new Thread(() -> {
        Ledger<Step> ledger = readerStore.ledger("race", Step.class);
        long seen = 0;
        while (!done.get() && failures.isEmpty()) {
          try {
            long floor = acked.get();
            Versioned<Step> v = ledger.load();
            assertThat(v.revision()).isGreaterThanOrEqualTo(Math.max(floor, seen));
            assertThat(v.state().n()).isEqualTo(v.revision());
            seen = v.revision();
            LedgerHead head = readerStore.head("race").orElseThrow();
            assertThat(head.revision()).isGreaterThanOrEqualTo(seen);
            reads.incrementAndGet();
          } catch (Throwable t) {
            failures.add(t);
          }
        }
      }));
      readers.add(new Thread(() -> {
        Ledger<Step> ledger = readerStore.ledger("race", Step.class);
        while (!done.get() && failures.isEmpty()) {
          try {
            EventPage page = ledger.events(Cursor.START, 20);
            List<Event> events = page.events();
            assertThat(events).isNotEmpty();
            for (int i = 1; i < events.size(); i++) {
              assertThat(events.get(i).sequence()).isEqualTo(events.get(0).sequence() + i);
            }
            try (Stream<Event> all = ledger.replay(Cursor.START)) {
              List<Event> list = all.toList();
              for (int i = 1; i < list.size(); i++) {
                assertThat(list.get(i).sequence()).isEqualTo(list.get(0).sequence() + i);
              }
            } catch (HistoryTruncatedException e) {
              truncations.incrementAndGet(); // overtaken while replaying: said, not hidden
            }
            reads.incrementAndGet();
          } catch (Throwable t) {
            failures.add(t);
          }
        }
      }));
      readers.add(new Thread(() -> {
        Ledger<Step> ledger = readerStore.ledger("race", Step.class);
        Cursor cursor = Cursor.START;
        Cursor stale = ledger.events(Cursor.START, 1).nextCursor(); // after sequence 1
        boolean staleGone = false;
        long last = 0;
        long restartedAt = 0;
        while (!done.get() && failures.isEmpty()) {
          try {
            try {
              ledger.events(stale, 1);
              assertThat(staleGone).as("a truncated cursor reads again").isFalse();
            } catch (HistoryTruncatedException e) {
              staleGone = true;
              truncations.incrementAndGet();
              assertThat(e.cursorSequence()).isEqualTo(1);
            }
            EventPage page = ledger.events(cursor, 3);
            for (Event e : page.events()) {
              if (restartedAt > 0) {
                // Read again from START: it begins at the first event retained by then, which
                // a retention after the refusal may have moved past the one it named.
                assertThat(e.sequence()).isGreaterThanOrEqualTo(restartedAt);
                restartedAt = 0;
              } else {
                assertThat(e.sequence()).isEqualTo(last + 1);
              }
              last = e.sequence();
            }
            cursor = page.nextCursor();
            reads.incrementAndGet();
          } catch (HistoryTruncatedException e) {
            truncations.incrementAndGet();
            assertThat(e.firstRetainedSequence()).isGreaterThan(e.cursorSequence() + 1);
            cursor = Cursor.START;
            restartedAt = e.firstRetainedSequence();
          } catch (Throwable t) {
            failures.add(t);
          }
        }
      }));
      readers.forEach(Thread::start);
      for (long n = 2; n <= commits && failures.isEmpty(); n++) {
        writer.commit(n - 1, new Step(n, pad), EventDraft.of("s", Map.of("n", n)));
        acked.set(n);
        writerStore.applyRetention("race", RetentionPolicy.keepRevisions(5));
      }
      done.set(true);
      for (Thread t : readers) {
        t.join(60_000);
      }
      assertThat(truncations.get()).as("cursors refused").isPositive();
      if (!failures.isEmpty()) {
        AssertionError error = new AssertionError(failures.size() + " reader failures; first: "
            + failures.peek(), failures.peek());
        throw error;
      }
      assertThat(writerStore.verify().clean()).isTrue();
      System.out.printf("retention reader race: %d commits each followed by a retention, %d "
          + "reads, %d cursors overtaken (HistoryTruncatedException)%n", commits, reads.get(),
          truncations.get());
    }
  }
}
