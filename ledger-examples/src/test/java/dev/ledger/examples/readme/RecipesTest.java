package dev.ledger.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Cursor;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.Versioned;
import dev.ledger.core.memory.InMemoryLedgerStore;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's snippets in {@link Recipes} do what the README says they do. */
class RecipesTest {
  @Test
  void theUpdateDecidesAndAChangeOfNothingWritesNothing() {
    try (LedgerStore store = InMemoryLedgerStore.create()) {
      Ledger<Recipes.Plan> ledger = store.ledger("run-1", Recipes.Plan.class);
      ledger.commit(Ledger.NO_REVISION, new Recipes.Plan("build", List.of()),
          EventDraft.of("plan.created", Map.of()));

      Versioned<Recipes.Plan> first = Recipes.compile(ledger);
      Versioned<Recipes.Plan> second = Recipes.compile(ledger);

      assertThat(first.revision()).isEqualTo(2);
      assertThat(first.state().done()).containsExactly("compile");
      assertThat(second.revision()).as("nothing to do: no new revision").isEqualTo(2);
      assertThat(ledger.events(Cursor.START, 10).events())
          .extracting(e -> e.type()).containsExactly("plan.created", "task.done");
    }
  }

  @Test
  void aStateWrittenBeforeTheRenameLoadsThroughTheUpcaster() {
    try (LedgerStore store = InMemoryLedgerStore.create()) {
      ObjectNode old = JsonNodeFactory.instance.objectNode().put("name", "build");
      old.putArray("done").add("compile");
      store.ledger("run-1", JsonNode.class).commit(Ledger.NO_REVISION, old);

      Versioned<Recipes.Renamed.Plan> loaded = Recipes.Renamed.ledger(store, "run-1").load();

      assertThat(loaded.state()).isEqualTo(new Recipes.Renamed.Plan("build", List.of("compile")));
    }
  }
}
