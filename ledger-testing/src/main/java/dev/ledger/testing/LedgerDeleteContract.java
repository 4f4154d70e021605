package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerBusyException;
import dev.ledger.core.LedgerNotFoundException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.RevisionConflictException;
import dev.ledger.core.RootIdCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The delete contract ({@link LedgerStore#delete}): the ledger goes whole, its id is free
 * again, every handle of the store sees a ledger never committed to, and a delete refused
 * because a writer holds the lock changes nothing. It runs as part of
 * {@link LedgerStoreContractTest} (its nested {@code Deleting} class).
 */
public abstract class LedgerDeleteContract {
  private final List<LedgerStore> opened = new ArrayList<>();

  /** For {@link LedgerStoreContractTest}'s nested class only. */
  LedgerDeleteContract() {}

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

  /**
   * Holds the writer lock of {@code rootId} from outside the store until the handle is
   * closed, or returns null to have the contract hold it by pausing a commit under it
   * (see {@link LedgerStoreContractTest#holdWriterLock}).
   *
   * @param store the store
   * @param rootId the ledger
   * @return the handle, or null
   * @throws Exception if the lock cannot be taken
   */
  protected AutoCloseable holdLock(LedgerStore store, String rootId) throws Exception {
    return null;
  }

    private LedgerStore open(LedgerOptions options) {
    LedgerStore store = newStore(options);
    opened.add(store);
    return store;
  }

  @AfterEach
  void closeAll() {
    opened.forEach(LedgerStore::close);
  }

  /**
   * A counter state.
   *
   * @param n the count
   */
  public record Count(int n) {}

  private static void commit(Ledger<Count> ledger, int commits) {
    for (int i = 0; i < commits; i++) {
      long at = ledger.find().map(v -> v.revision()).orElse(Ledger.NO_REVISION);
      ledger.commit(at, new Count((int) at + 1), EventDraft.of("counted", Map.of("n", at + 1))
          .withCommandId("count-" + (at + 1)));
    }
  }

  @Test
  void deleteRemovesTheLedgerAndFreesItsId() {
    LedgerStore store = open(baseOptions());
    Ledger<Count> gone = store.ledger("gone", Count.class);
    Ledger<Count> kept = store.ledger("kept", Count.class);
    commit(gone, 5);
    commit(kept, 2);

    assertThat(store.delete("gone")).isTrue();

    assertThat(store.exists("gone")).isFalse();
    assertThat(store.head("gone")).isEmpty();
    assertThat(store.rootIds()).containsExactly("kept");
    assertThat(store.rootIds(RootIdCursor.START, 10).rootIds()).containsExactly("kept");
    assertThatThrownBy(gone::load).isInstanceOf(LedgerNotFoundException.class);
    assertThat(gone.events(Cursor.START, 10).events()).isEmpty();
    assertThat(gone.command("count-3")).isEmpty();
    assertThat(kept.load().revision()).isEqualTo(2);
    assertThat(store.delete("gone")).as("a second delete").isFalse();
    assertThat(store.delete("never")).isFalse();
  }

  @Test
  void handlesOfTheStoreSeeADeletedLedgerAsNeverCommittedTo() {
    LedgerStore store = open(baseOptions());
    Ledger<Count> ledger = store.ledger("root-1", Count.class);
    Ledger<Count> other = store.ledger("root-1", Count.class);
    commit(ledger, 4);
    assertThat(store.delete("root-1")).isTrue();

    assertThatThrownBy(() -> other.commit(4, new Count(5)))
        .isInstanceOfSatisfying(RevisionConflictException.class, e -> {
          assertThat(e.expected()).isEqualTo(4);
          assertThat(e.actual()).isZero();
        });
    // The same command id starts afresh: the old ledger's commands are gone with it.
    commit(other, 2);
    assertThat(ledger.load().revision()).isEqualTo(2);
    assertThat(ledger.load().state()).isEqualTo(new Count(2));
    assertThat(ledger.events(Cursor.START, 10).events()).extracting(e -> e.sequence())
        .containsExactly(1L, 2L);
    assertThat(ledger.command("count-1")).hasValueSatisfying(r ->
        assertThat(r.revision()).isEqualTo(1));
    assertThat(store.rootIds()).containsExactly("root-1");
  }

  @Test
  void deleteIsRefusedWhileACommitHoldsTheLockAndChangesNothing() throws Exception {
    PausingClock clock = new PausingClock(baseOptions().clock());
    LedgerStore store = open(baseOptions().withClock(clock)
        .withLockTimeout(Duration.ofMillis(200)));
    Ledger<Count> ledger = store.ledger("busy", Count.class);
    commit(ledger, 3);
    AutoCloseable held = holdLock(store, "busy");
    if (held != null) {
      try (held) {
        assertThatThrownBy(() -> store.delete("busy"))
            .isInstanceOfSatisfying(LedgerBusyException.class, e -> {
              assertThat(e.rootId()).isEqualTo("busy");
              assertThat(e.getMessage()).contains("busy").contains("delete");
            });
        assertThat(store.exists("busy")).isTrue();
      }
      assertThat(ledger.load().revision()).isEqualTo(3);
      assertThat(store.delete("busy")).isTrue();
      return;
    }
    // A commit reads the clock under the ledger's writer lock: pausing it there holds the lock.
    clock.pauseNextRead();
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        ledger.commit(3, new Count(4));
      } catch (RuntimeException | Error e) {
        failed.set(e);
      }
    });
    writer.start();
    try {
      assertThat(clock.awaitPaused()).as("the commit reached its clock read").isTrue();
      assertThatThrownBy(() -> store.delete("busy"))
          .isInstanceOfSatisfying(LedgerBusyException.class, e -> {
            assertThat(e.rootId()).isEqualTo("busy");
            assertThat(e.getMessage()).contains("busy").contains("delete");
          });
      assertThat(store.exists("busy")).isTrue();
    } finally {
      clock.resume();
      writer.join(30_000);
    }
    assertThat(failed.get()).isNull();
    assertThat(ledger.load().revision()).isEqualTo(4);
    assertThat(ledger.load().state()).isEqualTo(new Count(4));
    assertThat(store.delete("busy")).isTrue();
  }

  /** A clock that can stop a commit at its clock read, holding the writer lock there. */
  private static final class PausingClock extends java.time.Clock {
    private final java.time.Clock base;
    private volatile CountDownLatch paused;
    private final CountDownLatch resumed = new CountDownLatch(1);

    PausingClock(java.time.Clock base) {
      this.base = base;
    }

    void pauseNextRead() {
      paused = new CountDownLatch(1);
    }

    boolean awaitPaused() throws InterruptedException {
      return paused.await(30, TimeUnit.SECONDS);
    }

    void resume() {
      resumed.countDown();
    }

    @Override
    public java.time.Instant instant() {
      CountDownLatch p = paused;
      if (p != null && p.getCount() > 0) {
        p.countDown();
        try {
          resumed.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return base.instant();
    }

    @Override
    public java.time.ZoneId getZone() {
      return base.getZone();
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      return this;
    }
  }
}
