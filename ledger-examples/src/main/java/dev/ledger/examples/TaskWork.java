package dev.ledger.examples;

/**
 * What running one attempt of a task does. Implementations must give the same outcome for the
 * same plan, task and attempt, whoever runs it: a restarted orchestrator may run an attempt a
 * second time, and its artifact snapshot (first write wins) must then agree.
 */
@FunctionalInterface
public interface TaskWork {
  /** Runs attempt {@code operation.attempt()} of {@code operation.task()}. */
  Outcome perform(PlanState plan, Operation operation);

  /**
   * The result of an attempt.
   *
   * @param succeeded whether it succeeded
   * @param output the output file's bytes (the task's result, or its error log)
   * @param error why it failed, or null
   */
  record Outcome(boolean succeeded, byte[] output, String error) {
    /** Copies the output. */
    public Outcome {
      output = output.clone();
    }

    /** A copy of the output. */
    @Override
    public byte[] output() {
      return output.clone();
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Outcome o && succeeded == o.succeeded
          && java.util.Arrays.equals(output, o.output) && java.util.Objects.equals(error, o.error);
    }

    @Override
    public int hashCode() {
      return java.util.Objects.hash(succeeded, java.util.Arrays.hashCode(output), error);
    }

    @Override
    public String toString() {
      return "Outcome[succeeded=" + succeeded + ", " + output.length + " bytes, error=" + error
          + "]";
    }
  }
}
