package dev.ledger.examples;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Commits through {@link PlanLedger}: conflicts are retried and counted, lost acks replayed. */
class PlanLedgerTest {
  private final InMemoryLedgerStore store = InMemoryLedgerStore.create(
      LedgerOptions.defaults().withClock(DeterministicScenario.CLOCK));
  private final Ledger<PlanState> ledger = store.ledger("plan", PlanState.class);

  @Test
  void aCommitWhoseAcknowledgementWasLostIsRetriedAndWrittenOnce() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger plans = new PlanLedger(new LosingFirstAcknowledgement(ledger), false);

    plans.apply(state -> Optional.of(Transition.of("note/1", state)
        .event("note", Map.of("n", 1)).build()));

    assertThat(plans.ioRetries()).isEqualTo(1);
    assertThat(ledger.load().revision()).isEqualTo(2);
    try (Stream<Event> all = ledger.replay(Cursor.START)) {
      assertThat(all.map(Event::type)).containsExactly("plan.created", "note");
    }
  }

  @Test
  void aLostRaceIsRetriedAndCountedInTheLedger() {
    Orchestration.create(ledger, Plans.generate("plan", 1, 4, 3));
    PlanLedger slow = new PlanLedger(ledger, false);
    PlanLedger fast = new PlanLedger(ledger, false);
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

  /** Commits the first commit, then reports an I/O error as if the answer had been lost. */
  private static final class LosingFirstAcknowledgement implements Ledger<PlanState> {
    private final Ledger<PlanState> delegate;
    private boolean lost;

    LosingFirstAcknowledgement(Ledger<PlanState> delegate) {
      this.delegate = delegate;
    }

    @Override
    public CommitResult commit(long expectedRevision, PlanState newState,
        List<EventDraft> events) {
      CommitResult result = delegate.commit(expectedRevision, newState, events);
      if (!lost) {
        lost = true;
        throw new LedgerIOException("commit", Path.of("journal"), new IOException("lost ack"));
      }
      assertThat(result.replayed()).isTrue();
      return result;
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
    public Versioned<PlanState> update(UnaryOperator<PlanState> change, EventDraft... events) {
      return delegate.update(change, events);
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
