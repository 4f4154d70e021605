package dev.ledger.examples.readme;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.Change;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.StateType;
import dev.ledger.core.Versioned;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The README's shorter snippets, compiled here and run by {@code RecipesTest}: an update that
 * decides, and a state type whose field was renamed.
 */
public final class Recipes {
  private Recipes() {}

  /**
   * A plan, as the quick start has it, with a step marked done.
   *
   * @param name the plan's name
   * @param done the tasks done, in order
   */
  public record Plan(String name, List<String> done) {
    /** Copies the list. */
    public Plan {
      done = List.copyOf(done);
    }

    /**
     * This plan with {@code task} done.
     *
     * @param task the task
     * @return a new plan
     */
    public Plan with(String task) {
      List<String> next = new ArrayList<>(done);
      next.add(task);
      return new Plan(name, next);
    }
  }

  /**
   * Marks {@code compile} done unless it already is: the update decides.
   *
   * @param ledger an existing plan's ledger
   * @return the version after the update (the current one if nothing changed)
   */
  public static Versioned<Plan> compile(Ledger<Plan> ledger) {
    // README:begin update
    Versioned<Plan> after = ledger.update(plan -> plan.done().contains("compile")
        ? Change.none()
        : Change.to(plan.with("compile"), EventDraft.of("task.done", Map.of("task", "compile"))));
    // README:end
    return after;
  }

  /** The same plan after its field {@code name} was renamed {@code title}. */
  public static final class Renamed {
    private Renamed() {}

    /**
     * Version 1 of the plan's state.
     *
     * @param title the plan's title (called {@code name} in version 0)
     * @param done the tasks done
     */
    public record Plan(String title, List<String> done) {}

    // README:begin state-type
    static final StateType<Plan> PLAN = StateType.of(Plan.class).withUpcaster(0, tree -> {
      ObjectNode plan = (ObjectNode) tree;
      plan.set("title", plan.remove("name"));
      return plan;
    });
    // README:end

    /**
     * The ledger of {@code rootId} read as version 1, states of version 0 upcast.
     *
     * @param store the store
     * @param rootId the root id
     * @return the ledger
     */
    public static Ledger<Plan> ledger(LedgerStore store, String rootId) {
      return store.ledger(rootId, PLAN);
    }
  }
}
