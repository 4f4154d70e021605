package dev.ledger.examples;

import com.google.common.base.Preconditions;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The whole state of one orchestration, kept as the state of one ledger: the tasks, the
 * background operations that run their attempts, and what the orchestrator asked for.
 * Immutable; every change returns a new state (maps are sorted, so the JSON is stable).
 *
 * @param planId the plan (and ledger root) id
 * @param seed the seed that generated the plan and decides which attempts fail
 * @param maxAttempts failed attempts after which a task fails for good
 * @param session the current orchestrator session; a restart starts a new one
 * @param draining whether the orchestrator asked workers to stop taking work
 * @param tasks tasks by id
 * @param operations operations by id
 * @param conflicts revision conflicts workers reported (each lost race for a revision)
 */
public record PlanState(String planId, long seed, int maxAttempts, int session, boolean draining,
    Map<String, Task> tasks, Map<String, Operation> operations, long conflicts) {
  /** Validates the fields and takes sorted, unmodifiable copies of the maps. */
  public PlanState {
    Preconditions.checkNotNull(planId, "planId");
    Preconditions.checkArgument(maxAttempts >= 1, "maxAttempts must be positive: %s",
        maxAttempts);
    tasks = Collections.unmodifiableSortedMap(new TreeMap<>(tasks));
    operations = Collections.unmodifiableSortedMap(new TreeMap<>(operations));
  }

  /** A new plan in session 1 with every task waiting. */
  public static PlanState create(String planId, long seed, int maxAttempts, List<Task> tasks) {
    Map<String, Task> byId = new TreeMap<>();
    tasks.forEach(t -> byId.put(t.id(), t));
    return new PlanState(planId, seed, maxAttempts, 1, false, byId, Map.of(), 0);
  }

  /** The task with this id. */
  public Task task(String id) {
    Task task = tasks.get(id);
    Preconditions.checkArgument(task != null, "no task %s", id);
    return task;
  }

  /** This state with {@code task} replaced. */
  public PlanState with(Task task) {
    Map<String, Task> next = new TreeMap<>(tasks);
    next.put(task.id(), task);
    return new PlanState(planId, seed, maxAttempts, session, draining, next, operations,
        conflicts);
  }

  /** This state with {@code operation} added or replaced. */
  public PlanState with(Operation operation) {
    Map<String, Operation> next = new TreeMap<>(operations);
    next.put(operation.id(), operation);
    return new PlanState(planId, seed, maxAttempts, session, draining, tasks, next, conflicts);
  }

  /** This state with {@code more} conflicts counted. */
  public PlanState plusConflicts(long more) {
    return new PlanState(planId, seed, maxAttempts, session, draining, tasks, operations,
        conflicts + more);
  }

  /** This state draining (or not), in session {@code newSession}. */
  public PlanState withSession(int newSession, boolean drain) {
    return new PlanState(planId, seed, maxAttempts, newSession, drain, tasks, operations,
        conflicts);
  }

  /** Whether every task is terminal. */
  public boolean complete() {
    return tasks.values().stream().allMatch(t -> t.status().terminal());
  }

  /** Tasks whose status matches. */
  public long countTasks(Predicate<Task> filter) {
    return tasks.values().stream().filter(filter).count();
  }

  /** Operations whose status matches. */
  public long countOperations(Predicate<Operation> filter) {
    return operations.values().stream().filter(filter).count();
  }

  /** The operations a restarted orchestrator must act on, in id order. */
  public List<Operation> recoverable() {
    return operations.values().stream().filter(o -> o.status().recoverable()).toList();
  }

  /** Waiting tasks whose dependencies all succeeded, in id order. */
  public List<Task> ready() {
    return tasks.values().stream()
        .filter(t -> t.status() == TaskStatus.WAITING)
        .filter(t -> t.dependsOn().stream()
            .allMatch(d -> task(d).status() == TaskStatus.SUCCEEDED))
        .toList();
  }
}
