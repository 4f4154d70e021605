package dev.ledger.collections.patchlog;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.core.LedgerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The transactions that the crash and fault tests of collection transactions run, and what
 * they must find afterwards. Writer {@code w}'s step {@code t} is one transaction that
 * touches every kind of thing a partition holds:
 * <ul>
 *   <li>inserts the entry {@code w-t} (its amount, and the queue items it dequeued);</li>
 *   <li>upserts the writer's {@link Mark} to {@code t} (an update from step 2 on);</li>
 *   <li>enqueues the item {@code w-t} and dequeues {@code t % 3} items (0, 1 or 2);</li>
 *   <li>adds the step's {@link #amount} to the counters {@code total} and {@code w}, and
 *       raises the counter {@code last:w} to {@code t} with {@code chmax}.</li>
 * </ul>
 * Because all of that is one commit, any partial visibility shows as a disagreement between
 * the entries, the marks, the queue and the counters, which {@link #checkConsistent} looks
 * for.
 */
final class TxFixture {
  private TxFixture() {}

  /** The partition every test works on. */
  static final String PARTITION = "work";

  /**
   * One step's record.
   *
   * @param id {@code writer-step}
   * @param writer the writer
   * @param step its step number, from 1
   * @param amount what the step added to the counters
   * @param took the queue items the step dequeued, in order
   */
  public record Entry(String id, String writer, long step, long amount, List<String> took) {}

  /**
   * A writer's last step, updated by every step.
   *
   * @param writer the writer
   * @param step its last step
   */
  public record Mark(String writer, long step) {}

  static final Schema SCHEMA = Schema.builder()
      .collection("entries", Entry.class, List.of("id"), List.of("writer"))
      .collection("marks", Mark.class, List.of("writer"))
      .queue("items", String.class)
      .keyValue("counters", String.class, Long.class)
      .build();

  /** Small segments and frequent checkpoints, so that crashes meet rolls and checkpoints. */
  static LedgerOptions ledgerOptions() {
    return LedgerOptions.defaults()
        .withSegmentBytes(8192)
        .withLockTimeout(Duration.ofSeconds(30));
  }

  /** Checkpoints whenever the journal passes a quarter of the data and 2 KiB. */
  static CollectionOptions collectionOptions() {
    return CollectionOptions.defaults().withCheckpoints(0.25, 2048)
        .withAttempts(1000, Duration.ofMillis(1));
  }

  /** What step {@code t} adds to the counters: 1 to 7, never the same for neighbours. */
  static long amount(long t) {
    return 1 + (t * 5) % 7;
  }

  /** The id of writer {@code w}'s step {@code t}, which is also the item it enqueues. */
  static String id(String writer, long t) {
    return writer + "-" + t;
  }

  /** The command id of writer {@code w}'s step {@code t}. */
  static String commandId(String writer, long t) {
    return "step-" + writer + "-" + t;
  }

  /**
   * Runs step {@code t} of {@code writer} as one transaction.
   *
   * @return the items it dequeued
   */
  static List<String> step(Transaction tx, String writer, long t) {
    var entries = tx.collection("entries", Entry.class);
    var queue = tx.queue("items", String.class);
    var counters = tx.keyValue("counters", String.class, Long.class);
    queue.enqueue(List.of(id(writer, t)));
    List<String> took = queue.dequeue((int) (t % 3));
    entries.insert(List.of(new Entry(id(writer, t), writer, t, amount(t), took)));
    tx.collection("marks", Mark.class).upsert(List.of(new Mark(writer, t)), List.of("step"));
    counters.inc("total", amount(t));
    counters.inc(writer, amount(t));
    counters.chmax("last:" + writer, t);
    return took;
  }

  /** The last step of {@code writer} that the partition holds, 0 if none. */
  static long lastStep(CollectionStore db, String writer) {
    return db.read(PARTITION, v -> v.keyValue("counters", String.class, Long.class)
        .get("last:" + writer).orElse(0L));
  }

  /** What a partition holds, read in one snapshot. */
  record Snapshot(long revision, Map<String, Entry> entries, Map<String, Long> marks,
      List<String> queue, Map<String, Long> counters) {}

  static Snapshot snapshot(CollectionStore db, List<String> writers) {
    return db.read(PARTITION, v -> {
      Map<String, Entry> entries = new LinkedHashMap<>();
      for (Entry e : v.collection("entries", Entry.class).query(Query.all()).items()) {
        entries.put(e.id(), e);
      }
      Map<String, Long> marks = new LinkedHashMap<>();
      var markReader = v.collection("marks", Mark.class);
      for (String w : writers) {
        markReader.get(Key.of(w)).ifPresent(m -> marks.put(w, m.step()));
      }
      var queue = v.queue("items", String.class);
      List<String> items = queue.peek((int) queue.size());
      var kv = v.keyValue("counters", String.class, Long.class);
      Map<String, Long> counters = new LinkedHashMap<>();
      kv.get("total").ifPresent(n -> counters.put("total", n));
      for (String w : writers) {
        kv.get(w).ifPresent(n -> counters.put(w, n));
        kv.get("last:" + w).ifPresent(n -> counters.put("last:" + w, n));
      }
      assertThat(kv.size()).as("counters").isEqualTo(counters.size());
      return new Snapshot(v.revision(), entries, marks, items, counters);
    });
  }

  /**
   * Checks that the partition holds exactly whole steps: for each writer, steps 1 to
   * {@code last[w]} and none after, with marks, counters and queue agreeing; every item
   * enqueued is either still queued or taken by exactly one step.
   *
   * @param s what the partition holds
   * @param last each writer's last step, as the counters say
   * @param context for failure messages
   */
  static void checkConsistent(Snapshot s, Map<String, Long> last, String context) {
    long total = 0;
    Set<String> enqueued = new HashSet<>();
    int entryCount = 0;
    for (Map.Entry<String, Long> w : last.entrySet()) {
      String writer = w.getKey();
      long steps = w.getValue();
      long sum = 0;
      for (long t = 1; t <= steps; t++) {
        Entry e = s.entries().get(id(writer, t));
        assertThat(e).as("%s: entry %s of a writer at step %s", context, id(writer, t), steps)
            .isNotNull();
        assertThat(e.amount()).as("%s: amount of %s", context, e.id()).isEqualTo(amount(t));
        assertThat(e.took()).as("%s: items taken by %s", context, e.id())
            .hasSizeLessThanOrEqualTo((int) (t % 3));
        sum += amount(t);
        enqueued.add(id(writer, t));
      }
      entryCount += steps;
      total += sum;
      assertThat(s.entries().get(id(writer, steps + 1))).as("%s: entry after the last step",
          context).isNull();
      assertThat(s.marks().getOrDefault(writer, 0L)).as("%s: mark of %s", context, writer)
          .isEqualTo(steps);
      assertThat(s.counters().getOrDefault(writer, 0L)).as("%s: counter %s", context, writer)
          .isEqualTo(sum);
    }
    assertThat(s.entries()).as("%s: entries beyond the writers' steps", context)
        .hasSize(entryCount);
    assertThat(s.counters().getOrDefault("total", 0L)).as("%s: counter total", context)
        .isEqualTo(total);
    List<String> taken = new ArrayList<>();
    for (Entry e : s.entries().values()) {
      taken.addAll(e.took());
    }
    List<String> everywhere = new ArrayList<>(taken);
    everywhere.addAll(s.queue());
    assertThat(everywhere).as("%s: items taken %s and queued %s", context, taken, s.queue())
        .doesNotHaveDuplicates()
        .containsExactlyInAnyOrderElementsOf(enqueued);
  }
}
