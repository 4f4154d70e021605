package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventFollower;
import dev.ledger.core.InvalidCursorException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StoreClosedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The follow contract ({@link Ledger#follow}): catch-up then live, each event once and in
 * order through checkpoints and segment rolls, bounded buffering, and close that releases.
 * It runs as part of {@link LedgerStoreContractTest} (its nested {@code Following} class),
 * on the stores that suite opens.
 *
 * <p>Every wait has a deadline; nothing sleeps.
 */
public abstract class LedgerFollowContract {
  /** The longest any single wait of these tests may take before the test fails. */
  protected static final Duration DEADLINE = Duration.ofSeconds(30);

  private final List<LedgerStore> opened = new ArrayList<>();
  private final ExecutorService consumer = Executors.newSingleThreadExecutor(r -> {
    Thread thread = new Thread(r, "follow-contract-consumer");
    thread.setDaemon(true);
    return thread;
  });

  /** For {@link LedgerStoreContractTest}'s nested class only. */
  LedgerFollowContract() {}

  /**
   * Opens a fresh, empty store.
   *
   * @param options the options to open it with
   * @return the store
   */
  protected abstract LedgerStore newStore(LedgerOptions options);

  /**
   * The options of the suite's stores.
   *
   * @return the options
   */
  protected abstract LedgerOptions baseOptions();

  private LedgerStore open(LedgerOptions options) {
    LedgerStore store = newStore(options);
    opened.add(store);
    return store;
  }

  private LedgerStore open() {
    return open(baseOptions());
  }

  @AfterEach
  void closeAll() throws InterruptedException {
    consumer.shutdownNow();
    consumer.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS);
    for (LedgerStore store : opened) {
      store.close();
    }
  }

  private static EventDraft event(int n) {
    return EventDraft.of("step", Map.of("n", n));
  }

  /** Commits {@code commits} commits of {@code perCommit} events, numbered on from the count. */
  private static CommitResult commit(Ledger<Counter> ledger, int commits, int perCommit) {
    CommitResult last = null;
    for (int c = 0; c < commits; c++) {
      long revision = ledger.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
      int first = (int) ledger.find().map(v -> v.state().value()).orElse(0L).longValue();
      List<EventDraft> drafts = new ArrayList<>();
      for (int e = 0; e < perCommit; e++) {
        drafts.add(event(first + e + 1));
      }
      last = ledger.commit(revision, new Counter(first + perCommit), drafts);
    }
    return last;
  }

  /** A counter state: how many events were committed. */
  public record Counter(long value) {}

  private static Event next(EventFollower follower) throws InterruptedException {
    Optional<Event> event = follower.next(DEADLINE);
    assertThat(event).as("an event within %s from %s", DEADLINE, follower).isPresent();
    return event.get();
  }

  private static List<Long> sequences(List<Event> events) {
    return events.stream().map(Event::sequence).toList();
  }

  private static List<Long> range(long from, long to) {
    List<Long> range = new ArrayList<>();
    for (long s = from; s <= to; s++) {
      range.add(s);
    }
    return range;
  }

  private static void awaitTrue(String what, BooleanSupplier condition)
      throws InterruptedException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + DEADLINE + ": " + what);
      }
      // A condition on other threads' state (thread exit) offers nothing to wait on.
      Thread.onSpinWait();
      Thread.yield();
    }
  }

  // ------------------------------------------------------------------ tests

  @Test
  void catchesUpFromStartThenDeliversLiveCommits() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-1", Counter.class);
    commit(ledger, 4, 2);
    try (EventFollower follower = ledger.follow(Cursor.START, 3)) {
      List<Event> caughtUp = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        caughtUp.add(next(follower));
      }
      assertThat(sequences(caughtUp)).isEqualTo(range(1, 8));
      assertThat(caughtUp).extracting(e -> e.payload().get("n").asInt())
          .containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
      assertThat(follower.poll()).isEmpty();
      assertThat(follower.next(Duration.ZERO)).isEmpty();

      Future<Optional<Event>> waiting = consumer.submit(() -> follower.next(DEADLINE));
      commit(ledger, 1, 1);
      Optional<Event> live = waiting.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
      assertThat(live).hasValueSatisfying(e -> {
        assertThat(e.sequence()).isEqualTo(9);
        assertThat(e.revision()).isEqualTo(5);
      });
      assertThat(follower.poll()).isEmpty();
    }
  }

  @Test
  void catchesUpFromAMidCursor() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-mid", Counter.class);
    commit(ledger, 3, 2);
    Cursor mid = ledger.events(Cursor.START, 3).nextCursor();
    CommitResult fourth = commit(ledger, 1, 2);
    try (EventFollower follower = ledger.follow(mid, 2)) {
      assertThat(follower.cursor()).isEqualTo(mid);
      List<Event> rest = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        rest.add(next(follower));
      }
      assertThat(sequences(rest)).isEqualTo(range(4, 8));
      assertThat(follower.poll()).isEmpty();
    }
    try (EventFollower follower = ledger.follow(fourth.cursor())) {
      assertThat(follower.poll()).isEmpty();
      commit(ledger, 1, 1);
      assertThat(next(follower).sequence()).isEqualTo(9);
    }
  }

  @Test
  void theFollowersCursorResumesAfterTheLastEventReturned() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-resume", Counter.class);
    commit(ledger, 5, 3);
    Cursor resume;
    try (EventFollower follower = ledger.follow(Cursor.START, 4)) {
      for (int i = 0; i < 6; i++) {
        next(follower);
      }
      assertThat(follower.buffered()).isEqualTo(2);
      resume = follower.cursor();
    }
    assertThat(ledger.events(resume, 1000).events()).extracting(Event::sequence)
        .isEqualTo(range(7, 15));
    try (EventFollower again = ledger.follow(resume)) {
      assertThat(next(again).sequence()).isEqualTo(7);
    }
  }

  @Test
  void everyEventArrivesOnceInOrderAcrossCheckpointsAndSegmentRolls() throws Exception {
    LedgerStore store = open(baseOptions().withCheckpointInterval(3).withSegmentBytes(4096));
    Ledger<Counter> ledger = store.ledger("follow-rolls", Counter.class);
    int commits = 120;
    int perCommit = 3;
    try (EventFollower follower = ledger.follow(Cursor.START, 5)) {
      Future<List<Event>> received = consumer.submit(() -> {
        List<Event> events = new ArrayList<>();
        while (events.size() < commits * perCommit) {
          events.add(next(follower));
        }
        return events;
      });
      commit(ledger, commits, perCommit);
      List<Event> events = received.get(DEADLINE.toSeconds() * 2, TimeUnit.SECONDS);
      assertThat(sequences(events)).isEqualTo(range(1, commits * perCommit));
      assertThat(events).extracting(e -> e.payload().get("n").asLong())
          .isEqualTo(range(1, commits * perCommit));
      assertThat(follower.poll()).isEmpty();
      List<Event> replayed;
      try (var all = ledger.replay(Cursor.START)) {
        replayed = all.toList();
      }
      assertThat(events).isEqualTo(replayed);
    }
  }

  @Test
  void aSlowConsumerHoldsAtMostOnePage() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-slow", Counter.class);
    commit(ledger, 40, 10);
    int pageSize = 7;
    try (EventFollower follower = ledger.follow(Cursor.START, pageSize)) {
      assertThat(follower.pageSize()).isEqualTo(pageSize);
      assertThat(follower.buffered()).as("nothing read before the first demand").isZero();
      int maxBuffered = 0;
      for (int i = 1; i <= 400; i++) {
        assertThat(next(follower).sequence()).isEqualTo(i);
        maxBuffered = Math.max(maxBuffered, follower.buffered());
        assertThat(follower.buffered()).isLessThan(pageSize);
      }
      assertThat(maxBuffered).isEqualTo(pageSize - 1);
      assertThat(follower.poll()).isEmpty();
    }
  }

  @Test
  void aLedgerThatDoesNotExistYetIsFollowedFromItsFirstCommit() throws Exception {
    LedgerStore store = open();
    Ledger<Counter> ledger = store.ledger("not-yet", Counter.class);
    try (EventFollower follower = ledger.follow(Cursor.START)) {
      assertThat(follower.poll()).isEmpty();
      assertThat(follower.next(Duration.ofMillis(1))).isEmpty();
      assertThat(store.rootIds()).doesNotContain("not-yet");
      Future<Optional<Event>> waiting = consumer.submit(() -> follower.next(DEADLINE));
      commit(ledger, 1, 2);
      assertThat(waiting.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
          .hasValueSatisfying(e -> assertThat(e.sequence()).isEqualTo(1));
      assertThat(next(follower).sequence()).isEqualTo(2);
    }
  }

  @Test
  void closeWakesTheWaiterReleasesThreadsAndStopsDelivery() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-close", Counter.class);
    commit(ledger, 1, 1);
    Set<Thread> before = Thread.getAllStackTraces().keySet();
    EventFollower follower = ledger.follow(Cursor.START, 10);
    assertThat(next(follower).sequence()).isEqualTo(1);
    AtomicReference<Thread> waiter = new AtomicReference<>();
    Future<Optional<Event>> waiting = consumer.submit(() -> {
      waiter.set(Thread.currentThread());
      return follower.next(DEADLINE);
    });
    awaitTrue("the consumer waits in next", () -> waiter.get() != null
        && waiter.get().getState() == Thread.State.TIMED_WAITING);
    follower.close();
    assertThat(waiting.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isEmpty();
    assertThat(follower.isClosed()).isTrue();
    commit(ledger, 2, 1);
    assertThat(follower.buffered()).isZero();
    assertThatThrownBy(follower::poll).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("follow-close");
    assertThatThrownBy(() -> follower.next(Duration.ZERO))
        .isInstanceOf(IllegalStateException.class);
    follower.close(); // idempotent
    consumer.shutdown();
    assertThat(consumer.awaitTermination(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
    awaitTrue("every thread started while following has ended", () -> {
      Set<String> extra = Thread.getAllStackTraces().keySet().stream()
          .filter(t -> !before.contains(t) && t.isAlive())
          .filter(t -> !t.getName().startsWith("follow-contract-consumer"))
          .map(Thread::getName).collect(Collectors.toSet());
      return extra.isEmpty();
    });
  }

  @Test
  void closingTheStoreEndsItsFollowers() throws Exception {
    LedgerStore store = open();
    Ledger<Counter> ledger = store.ledger("follow-store-close", Counter.class);
    commit(ledger, 1, 1);
    EventFollower follower = ledger.follow(Cursor.START);
    assertThat(next(follower).sequence()).isEqualTo(1);
    Future<Optional<Event>> waiting = consumer.submit(() -> follower.next(DEADLINE));
    store.close();
    assertThatThrownBy(() -> waiting.get(DEADLINE.toSeconds(), TimeUnit.SECONDS))
        .hasCauseInstanceOf(StoreClosedException.class);
    assertThat(follower.isClosed()).isTrue();
    assertThatThrownBy(follower::poll).isInstanceOf(StoreClosedException.class);
    assertThatThrownBy(() -> ledger.follow(Cursor.START))
        .isInstanceOf(StoreClosedException.class);
  }

  @Test
  void aForeignCursorEndsTheFollowerWithATypedError() throws Exception {
    LedgerStore store = open();
    Ledger<Counter> a = store.ledger("follow-a", Counter.class);
    Ledger<Counter> b = store.ledger("follow-b", Counter.class);
    commit(a, 1, 1);
    CommitResult onB = commit(b, 1, 1);
    EventFollower follower = a.follow(onB.cursor());
    assertThatThrownBy(follower::poll).isInstanceOf(InvalidCursorException.class)
        .hasMessageContaining("follow-a");
    assertThat(follower.isClosed()).isTrue();
    assertThatThrownBy(() -> follower.next(Duration.ZERO))
        .isInstanceOf(InvalidCursorException.class);
  }

  @Test
  void badArgumentsAreRefused() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-args", Counter.class);
    assertThatThrownBy(() -> ledger.follow(null)).isInstanceOf(NullPointerException.class);
    assertThatThrownBy(() -> ledger.follow(Cursor.START, 0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("0");
    assertThatThrownBy(() -> ledger.follow(Cursor.START, 1001))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1001");
    try (EventFollower follower = ledger.follow(Cursor.START)) {
      assertThatThrownBy(() -> follower.next(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> follower.next(Duration.ofSeconds(-1)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-1");
    }
  }

  @Test
  void followersOfOneLedgerEachGetEveryEvent() throws Exception {
    Ledger<Counter> ledger = open().ledger("follow-many", Counter.class);
    try (EventFollower first = ledger.follow(Cursor.START, 2);
        EventFollower second = ledger.follow(Cursor.START, 50)) {
      commit(ledger, 10, 2);
      List<Event> one = new ArrayList<>();
      List<Event> two = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        one.add(next(first));
        two.add(next(second));
      }
      assertThat(sequences(one)).isEqualTo(range(1, 20));
      assertThat(two).isEqualTo(one);
    }
  }
}
