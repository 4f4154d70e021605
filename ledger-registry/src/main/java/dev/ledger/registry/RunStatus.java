package dev.ledger.registry;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.ledger.core.lifecycle.Lifecycle;
import java.util.Locale;

/**
 * Where a run stands. Its {@linkplain #lifecycle() lifecycle}:
 * <pre>
 * starting         -&gt; running, cancel_requested, failed, orphaned
 * running          -&gt; cancel_requested, completed, failed, orphaned
 * cancel_requested -&gt; canceling, canceled, completed, failed, orphaned
 * canceling        -&gt; canceled, completed, failed, orphaned
 * completed, failed, canceled, orphaned: terminal
 * </pre>
 * Stamps: {@code startedAt} on the first entry to running, {@code completedAt} on entering any
 * terminal state, {@code cancelRequestedAt} on entering cancel_requested. Stored and shown by
 * its {@link #wireName()}.
 */
public enum RunStatus {
  /** Allocated; the job is being launched. */
  @JsonProperty("starting") STARTING,
  /** The job runs. */
  @JsonProperty("running") RUNNING,
  /** Someone asked the job to stop; its owner has not acted yet. */
  @JsonProperty("cancel_requested") CANCEL_REQUESTED,
  /** The owner is stopping the job. */
  @JsonProperty("canceling") CANCELING,
  /** The job finished successfully (terminal). */
  @JsonProperty("completed") COMPLETED,
  /** The job failed (terminal). */
  @JsonProperty("failed") FAILED,
  /** The job was stopped (terminal). */
  @JsonProperty("canceled") CANCELED,
  /** The job's owner disappeared and nobody knows how it ended (terminal). */
  @JsonProperty("orphaned") ORPHANED;

  /** The wire name, computed once: a transition reads it several times. */
  private final String wireName;

  RunStatus() {
    wireName = name().toLowerCase(Locale.ROOT);
  }

  /** Timestamp field stamped on the first entry to {@link #RUNNING}. */
  public static final String STARTED_AT = "startedAt";
  /** Timestamp field stamped on entering any terminal state. */
  public static final String COMPLETED_AT = "completedAt";
  /** Timestamp field stamped on entering {@link #CANCEL_REQUESTED}. */
  public static final String CANCEL_REQUESTED_AT = "cancelRequestedAt";

  private static final Lifecycle<RunStatus> LIFECYCLE = Lifecycle
      .forEnum(RunStatus.class, RunStatus::wireName)
      .initial(STARTING)
      .allow(STARTING, RUNNING, CANCEL_REQUESTED, FAILED, ORPHANED)
      .allow(RUNNING, CANCEL_REQUESTED, COMPLETED, FAILED, ORPHANED)
      .allow(CANCEL_REQUESTED, CANCELING, CANCELED, COMPLETED, FAILED, ORPHANED)
      .allow(CANCELING, CANCELED, COMPLETED, FAILED, ORPHANED)
      .terminal(COMPLETED, FAILED, CANCELED, ORPHANED)
      .stampOnFirstEntry(STARTED_AT, RUNNING)
      .stampOnEntry(CANCEL_REQUESTED_AT, CANCEL_REQUESTED)
      .stampOnTerminal(COMPLETED_AT)
      .build();

  /**
   * The run lifecycle (see the class comment).
   *
   * @return the lifecycle, shared and immutable
   */
  public static Lifecycle<RunStatus> lifecycle() {
    return LIFECYCLE;
  }

  /**
   * The name stored and shown: the constant in lower case ({@code cancel_requested}).
   *
   * @return the wire name
   */
  public String wireName() {
    return wireName;
  }

  /**
   * Whether nothing can change this run's status any more.
   *
   * @return true for completed, failed, canceled and orphaned
   */
  public boolean isTerminal() {
    return this == COMPLETED || this == FAILED || this == CANCELED || this == ORPHANED;
  }

  /**
   * The status with a wire name, for names from outside (a command line, a request).
   *
   * @param wireName a wire name such as {@code running}
   * @return the status
   * @throws dev.ledger.core.lifecycle.UnknownStateException if no status has that name
   * @throws NullPointerException if {@code wireName} is null
   */
  public static RunStatus of(String wireName) {
    return LIFECYCLE.state(wireName);
  }
}
