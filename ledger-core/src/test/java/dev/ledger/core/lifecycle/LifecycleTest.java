package dev.ledger.core.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.EventDraft;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LifecycleTest {
  enum Phase { NEW, ACTIVE, PAUSED, CLOSED, ABANDONED }

  private static final Instant T1 = Instant.parse("2026-11-30T12:00:00Z");
  private static final Instant T2 = T1.plusSeconds(5);

  private static Lifecycle<Phase> phases() {
    return Lifecycle.forEnum(Phase.class)
        .initial(Phase.NEW)
        .allow(Phase.NEW, Phase.ACTIVE, Phase.ABANDONED)
        .allow(Phase.ACTIVE, Phase.PAUSED, Phase.CLOSED, Phase.ABANDONED)
        .allow(Phase.PAUSED, Phase.ACTIVE, Phase.ABANDONED)
        .terminal(Phase.CLOSED, Phase.ABANDONED)
        .stampOnFirstEntry("activatedAt", Phase.ACTIVE)
        .stampOnEntry("pausedAt", Phase.PAUSED)
        .stampOnTerminal("endedAt")
        .build();
  }

  @Test
  void anAllowedTransitionCarriesTheStampsOfTheStateItEnters() {
    Transition<Phase> step = phases().transition(Phase.NEW, Phase.ACTIVE, T1);
    assertThat(step.isNoOp()).isFalse();
    assertThat(step.stamps()).containsOnlyKeys("activatedAt").containsEntry("activatedAt", T1);
    assertThat(phases().transition(Phase.ACTIVE, Phase.CLOSED, T1).stamps())
        .containsOnlyKeys("endedAt");
    assertThat(phases().transition(Phase.NEW, Phase.ABANDONED, T1).stamps())
        .containsOnlyKeys("endedAt");
  }

  @Test
  void aFirstEntryStampIsSetOnlyWhenTheThingHasNoValueYet() {
    Lifecycle<Phase> lifecycle = phases();
    Transition<Phase> back = lifecycle.transition(Phase.PAUSED, Phase.ACTIVE,
        Set.of("activatedAt", "pausedAt"), T2, "x");
    assertThat(back.stamps()).isEmpty();
    Transition<Phase> pauseAgain = lifecycle.transition(Phase.ACTIVE, Phase.PAUSED,
        Set.of("activatedAt", "pausedAt"), T2, "x");
    assertThat(pauseAgain.stamps()).containsEntry("pausedAt", T2);
  }

  @Test
  void aTransitionToTheCurrentStateIsANoOpWithoutStamps() {
    Transition<Phase> step = phases().transition(Phase.ACTIVE, Phase.ACTIVE, T1);
    assertThat(step.isNoOp()).isTrue();
    assertThat(step.stamps()).isEmpty();
    assertThat(phases().transition(Phase.CLOSED, Phase.CLOSED, T1).isNoOp()).isTrue();
  }

  @Test
  void aDisallowedTransitionNamesFromToAndTheAllowedSet() {
    assertThatThrownBy(() -> phases().transition(Phase.NEW, Phase.CLOSED, Set.of(), T1, "r-7"))
        .isInstanceOfSatisfying(InvalidTransitionException.class, e -> {
          assertThat(e.from()).isEqualTo("new");
          assertThat(e.to()).isEqualTo("closed");
          assertThat(e.allowed()).containsExactly("active", "abandoned");
          assertThat(e).hasMessageContaining("r-7").hasMessageContaining("new -> closed");
        });
  }

  @Test
  void nothingLeavesATerminalState() {
    for (Phase to : List.of(Phase.NEW, Phase.ACTIVE, Phase.ABANDONED)) {
      assertThatThrownBy(() -> phases().transition(Phase.CLOSED, to, T1))
          .isInstanceOfSatisfying(InvalidTransitionException.class,
              e -> assertThat(e.allowed()).isEmpty());
    }
    assertThat(phases().isTerminal(Phase.CLOSED)).isTrue();
    assertThat(phases().allowedFrom(Phase.CLOSED)).isEmpty();
  }

  @Test
  void aDeclarationWithAnUnreachableStateIsRefused() {
    assertThatThrownBy(() -> Lifecycle.forEnum(Phase.class).initial(Phase.NEW)
        .allow(Phase.NEW, Phase.ACTIVE).allow(Phase.ACTIVE, Phase.CLOSED)
        .allow(Phase.PAUSED, Phase.CLOSED).allow(Phase.ABANDONED, Phase.CLOSED)
        .terminal(Phase.CLOSED).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not reachable").hasMessageContaining("paused")
        .hasMessageContaining("abandoned");
  }

  @Test
  void aTerminalStateWithAWayOutIsRefused() {
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "b")).initial("a").allow("a", "b")
        .allow("b", "a").terminal("b").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("terminal state 'b' has a way out");
  }

  @Test
  void aStateThatIsNotTerminalNeedsAWayOut() {
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "b")).initial("a").allow("a", "b")
        .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'b' is not terminal but has no transition out");
  }

  @Test
  void unknownStatesAreRefusedWhenDeclaring() {
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "b")).allow("a", "c"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown state 'c'");
    assertThatThrownBy(() -> Lifecycle.named(List.of("a")).terminal("z"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Lifecycle.named(List.of("a")).initial("z"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "b")).stampOnEntry("t", "z"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "a")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("twice");
    assertThatThrownBy(() -> Lifecycle.named(List.of("a", "b")).allow("a", "a"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no-op");
    assertThatThrownBy(() -> Lifecycle.named(List.of("a")).terminal("a").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial");
  }

  @Test
  void unknownStatesAreATypedErrorAtRunTime() {
    Lifecycle<String> named = Lifecycle.named(List.of("open", "shut")).initial("open")
        .allow("open", "shut").terminal("shut").build();
    assertThatThrownBy(() -> named.transition("open", "ajar", T1))
        .isInstanceOfSatisfying(UnknownStateException.class, e -> {
          assertThat(e.state()).isEqualTo("ajar");
          assertThat(e.known()).containsExactly("open", "shut");
        });
    assertThatThrownBy(() -> named.transition("ajar", "shut", T1))
        .isInstanceOf(UnknownStateException.class);
    assertThatThrownBy(() -> phases().state("halted"))
        .isInstanceOf(UnknownStateException.class);
    assertThat(phases().state("paused")).isEqualTo(Phase.PAUSED);
  }

  @Test
  void enumStatesAreNamedInLowerCaseOrByTheGivenNames() {
    assertThat(phases().name(Phase.ABANDONED)).isEqualTo("abandoned");
    Lifecycle<Phase> custom = Lifecycle.forEnum(Phase.class, p -> "P" + p.ordinal())
        .initial(Phase.NEW).allow(Phase.NEW, Phase.ACTIVE, Phase.PAUSED, Phase.CLOSED,
            Phase.ABANDONED).terminal(Phase.ACTIVE, Phase.PAUSED, Phase.CLOSED,
            Phase.ABANDONED).build();
    assertThat(custom.state("P3")).isEqualTo(Phase.CLOSED);
  }

  @Test
  void aStatusChangedEventCarriesFromToRevisionAndDetails() {
    Lifecycle<Phase> lifecycle = phases();
    Transition<Phase> step = lifecycle.transition(Phase.NEW, Phase.ACTIVE, T1);
    StatusChanged change = lifecycle.statusChanged(step, 4,
        JsonNodeFactory.instance.objectNode().put("by", "alice"));
    EventDraft draft = change.toEvent();
    assertThat(draft.type()).isEqualTo("status_changed");
    assertThat(draft.payload().get("from").asText()).isEqualTo("new");
    assertThat(draft.payload().get("to").asText()).isEqualTo("active");
    assertThat(draft.payload().get("revision").asLong()).isEqualTo(4);
    assertThat(draft.payload().get("details").get("by").asText()).isEqualTo("alice");
    assertThat(StatusChanged.fromPayload(draft.payload())).isEqualTo(change);
    Transition<Phase> noOp = lifecycle.transition(Phase.NEW, Phase.NEW, T1);
    assertThatThrownBy(() -> lifecycle.statusChanged(noOp, 4, null))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
