package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.Change;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.EventPage;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerIOException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.Versioned;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Commits through {@link PlanLedger}: conflicts are retried and counted, an I/O error is
 * settled by asking the ledger whether the command was recorded.
 */
class PlanLedgerTest {
  private final InMemoryLedgerStore store = InMemoryLedgerStore.create(
      LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK));
  private final Ledger<PlanState> ledger = store.ledger("plan", PlanState.class);

  @Test
  void aCommitWhoseAcknowledgementWasLostIsFoundRecordedAndNotWrittenAgain() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger plans = new PlanLedger(new FailingFirstUpdate(ledger, true));

    Optional<Transition> done = plans.apply(state -> Optional.of(Transition.of("note/1", state)
        .event("note", Map.of("n", 1)).build()));

    assertThat(done).map(Transition::commandId).contains("note/1");
    assertThat(plans.ioErrors()).isEqualTo(1);
    assertThat(ledger.load().revision()).isEqualTo(2);
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      assertThat(all.map(Event::type)).containsExactly("plan.created", "note");
    }
  }

  @Test
  void aCommitThatFailedBeforeTheJournalIsDecidedAgainAndWrittenOnce() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger plans = new PlanLedger(new FailingFirstUpdate(ledger, false));
    int[] calls = {0};

    plans.apply(state -> {
      calls[0]++;
      return Optional.of(Transition.of("note/1", state).event("note", Map.of("n", 1)).build());
    });

    assertThat(calls[0]).isEqualTo(2);
    assertThat(plans.ioErrors()).isEqualTo(1);
    assertThat(plans.conflicts()).isZero();
    assertThat(ledger.load().revision()).isEqualTo(2);
  }

  @Test
  void aLostRaceIsRetriedAndCountedInTheLedger() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger slow = new PlanLedger(ledger);
    PlanLedger fast = new PlanLedger(ledger);
    int[] calls = {0};

    slow.apply(state -> {
      if (calls[0]++ == 0) { // another writer commits between our read and our commit
        fast.apply(s -> Optional.of(Transition.of("fast", s).event("fast", Map.of()).build()));
      }
      return Optional.of(Transition.of("slow/" + calls[0], state)
          .event("slow", Map.of("call", calls[0])).build());
    });

    assertThat(calls[0]).isEqualTo(2);
    assertThat(slow.conflicts()).isEqualTo(1);
    assertThat(ledger.load().state().conflicts()).isEqualTo(1);
    assertThat(ledger.load().revision()).isEqualTo(3);
  }

  @Test
  void nothingToDoWritesNothing() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger plans = new PlanLedger(ledger);

    assertThat(plans.apply(state -> Optional.empty())).isEmpty();

    assertThat(ledger.load().revision()).isEqualTo(1);
  }

  /**
   * Fails the first update with an I/O error: after it committed ({@code landed}), as if the
   * acknowledgement had been lost, or before reaching the ledger.
   */
  private static final class FailingFirstUpdate implements Ledger<PlanState> {
    private final Ledger<PlanState> delegate;
    private final boolean landed;
    private boolean failed;

    FailingFirstUpdate(Ledger<PlanState> delegate, boolean landed) {
      this.delegate = delegate;
      this.landed = landed;
    }

    @Override
    public Versioned<PlanState> update(Function<? super PlanState, Change<PlanState>> change) {
      if (failed) {
        return delegate.update(change);
      }
      failed = true;
      if (landed) {
        delegate.update(change);
      } else {
        change.apply(delegate.load().state()); // decided, then failed before the journal
      }
      throw new LedgerIOException("commit", Path.of("journal"), new IOException("lost ack"));
    }

    @Override
    public CommitResult commit(long expectedRevision, PlanState newState,
        List<EventDraft> events) {
      return delegate.commit(expectedRevision, newState, events);
    }

    @Override
    public Optional<CommitResult> command(String commandId) {
      return delegate.command(commandId);
    }

    @Override
    public String rootId() {
      return delegate.rootId();
    }

    @Override
    public Versioned<PlanState> load() {
      return delegate.load();
    }

    @Override
    public Optional<Versioned<PlanState>> find() {
      return delegate.find();
    }

    @Override
    public EventPage events(Cursor after, int limit) {
      return delegate.events(after, limit);
    }

    @Override
    public Stream<Event> replay(Cursor after) {
      return delegate.replay(after);
    }
  }
}
