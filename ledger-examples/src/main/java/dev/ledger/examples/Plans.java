package dev.ledger.examples;

import com.google.common.base.Preconditions;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * Generates plans: {@code count} tasks {@code t01, t02, ...}; the first four have no
 * dependencies, each later one depends on up to two of the eight before it (chosen by the
 * seed). One task always fails ({@link #alwaysFailing}); only the last task depends on it, so
 * the demo shows one task given up after its max attempts and one dependent skipped.
 */
public final class Plans {
  private Plans() {}

  /** The plan with {@code count} tasks (4 to 99) generated from {@code seed}. */
  public static PlanState generate(String planId, long seed, int count, int maxAttempts) {
    Preconditions.checkArgument(count >= 4 && count <= 99, "count must be 4 to 99: %s", count);
    Random random = new Random(seed);
    String failing = alwaysFailing(count);
    List<Task> tasks = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      TreeSet<String> deps = new TreeSet<>();
      if (i > 4) {
        int wanted = random.nextInt(3);
        for (int k = 0; k < wanted; k++) {
          String dep = id(Math.max(1, i - 8) + random.nextInt(Math.min(8, i - 1)));
          if (!dep.equals(failing)) {
            deps.add(dep);
          }
        }
      }
      if (i == count) {
        deps.add(failing);
      }
      tasks.add(new Task(id(i), List.copyOf(deps), TaskStatus.WAITING, 0, 0, null));
    }
    return PlanState.create(planId, seed, maxAttempts, tasks);
  }

  /** The id of task number {@code n}. */
  public static String id(int n) {
    return String.format("t%02d", n);
  }

  /** The number of task {@code id}. */
  public static int number(String id) {
    return Integer.parseInt(id.substring(1));
  }

  /** The task of a {@code count}-task plan that fails every attempt. */
  public static String alwaysFailing(int count) {
    return id(Math.max(1, count * 2 / 3));
  }
}
