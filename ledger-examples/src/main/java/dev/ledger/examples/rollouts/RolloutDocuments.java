package dev.ledger.examples.rollouts;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The documents the {@link RolloutStore} keeps in its collections, one record each, as
 * Jackson maps them (nulls are left out on disk and read back as null). They are plain values:
 * every change is a new record written in a transaction.
 */
public final class RolloutDocuments {
  private RolloutDocuments() {}

  /** Where a rollout is in its life. */
  public enum RolloutStatus {
    /** Waiting in the rollout queue for its first attempt. */
    QUEUING,
    /** An attempt was created; its worker has not reported yet. */
    PREPARING,
    /** Its latest attempt reports progress. */
    RUNNING,
    /** Ended without success, no retry left. */
    FAILED,
    /** Ended with success. */
    SUCCEEDED,
    /** Stopped by a caller. */
    CANCELLED,
    /** Its latest attempt failed and a retry is allowed: back in the queue. */
    REQUEUING;

    /**
     * Whether the rollout has ended.
     *
     * @return true for failed, succeeded and cancelled
     */
    public boolean terminal() {
      return this == FAILED || this == SUCCEEDED || this == CANCELLED;
    }
  }

  /** Where an attempt is in its life. */
  public enum AttemptStatus {
    /** Created by a dequeue or a manual retry. */
    PREPARING,
    /** Its worker reported progress (a span or a heartbeat). */
    RUNNING,
    /** Its worker reported failure. */
    FAILED,
    /** Its worker reported success. */
    SUCCEEDED,
    /** The watchdog found no heartbeat for too long. */
    UNRESPONSIVE,
    /** The watchdog found it running for too long. */
    TIMEOUT
  }

  /** What a worker is doing. */
  public enum WorkerStatus {
    /** Waiting for work. */
    IDLE,
    /** Working on an attempt. */
    BUSY,
    /** Its attempt timed out or went silent. */
    UNKNOWN
  }

  /**
   * How a rollout may be retried.
   *
   * @param timeoutSeconds an attempt running longer times out; null for never
   * @param unresponsiveSeconds an attempt silent longer is unresponsive; null for never
   * @param maxAttempts attempts allowed, at least 1
   * @param retryCondition the attempt statuses that allow a retry
   */
  public record RolloutConfig(Long timeoutSeconds, Long unresponsiveSeconds, int maxAttempts,
      Set<AttemptStatus> retryCondition) {}

  /**
   * A unit of work: one input, run by one or more attempts.
   *
   * @param rolloutId {@code ro-} and 12 characters; the primary key
   * @param input the caller's input
   * @param startTime when it was enqueued
   * @param endTime when it reached a terminal status, or null
   * @param mode {@code train}, {@code val}, {@code test}, or null
   * @param resourcesId the resources it runs with, or null
   * @param status where it is; indexed
   * @param config how it may be retried
   * @param metadata the caller's, or null
   */
  public record Rollout(String rolloutId, JsonNode input, Instant startTime, Instant endTime,
      String mode, String resourcesId, RolloutStatus status, RolloutConfig config,
      Map<String, Object> metadata) {
    /**
     * This rollout with another status, and an end time if the status is terminal.
     *
     * @param next the status
     * @param now the time
     * @return the new record
     */
    public Rollout withStatus(RolloutStatus next, Instant now) {
      return new Rollout(rolloutId, input, startTime, next.terminal() ? now : endTime, mode,
          resourcesId, next, config, metadata);
    }
  }

  /**
   * One try of a rollout by one worker.
   *
   * @param rolloutId its rollout; first key field
   * @param attemptId {@code at-} and 8 characters; second key field
   * @param sequenceId 1 for the first attempt of the rollout, then 2, 3 …; indexed
   * @param startTime when it was created
   * @param endTime when it failed or succeeded, or null
   * @param status where it is; indexed
   * @param workerId who runs it, or null
   * @param lastHeartbeatTime its last sign of life, or null
   * @param metadata the caller's, or null
   */
  public record Attempt(String rolloutId, String attemptId, int sequenceId, Instant startTime,
      Instant endTime, AttemptStatus status, String workerId, Instant lastHeartbeatTime,
      Map<String, Object> metadata) {}

  /**
   * One traced operation of an attempt.
   *
   * @param rolloutId first key field
   * @param attemptId second key field
   * @param spanId third key field
   * @param sequenceId its place in the rollout's spans, from the rollout's counter; indexed
   * @param traceId the trace
   * @param parentId the parent span, or null
   * @param name what it did
   * @param status its status
   * @param attributes its attributes
   * @param startTime when it started, or null
   * @param endTime when it ended, or null
   */
  public record Span(String rolloutId, String attemptId, String spanId, long sequenceId,
      String traceId, String parentId, String name, String status,
      Map<String, Object> attributes, Instant startTime, Instant endTime) {}

  /**
   * A worker, as the attempts it runs report it.
   *
   * @param workerId the primary key
   * @param status what it does; indexed
   * @param lastHeartbeatTime its last sign of life, or null
   * @param lastDequeueTime when it last asked for work, or null
   * @param lastBusyTime when it last started an attempt, or null
   * @param lastIdleTime when it last ended one, or null
   * @param currentRolloutId the rollout it runs, or null
   * @param currentAttemptId the attempt it runs, or null
   */
  public record Worker(String workerId, WorkerStatus status, Instant lastHeartbeatTime,
      Instant lastDequeueTime, Instant lastBusyTime, Instant lastIdleTime,
      String currentRolloutId, String currentAttemptId) {}

  /**
   * A versioned set of named resources (models, endpoints) that rollouts run with.
   *
   * @param resourcesId {@code rs-} and 12 characters; the primary key
   * @param createTime when version 1 was written
   * @param updateTime when this version was written; indexed
   * @param version 1, then one more per update
   * @param resources name to resource
   */
  public record ResourcesUpdate(String resourcesId, Instant createTime, Instant updateTime,
      int version, Map<String, JsonNode> resources) {}

  /**
   * A span as a worker reports it, before the store gives it a sequence id.
   *
   * @param spanId its id within the attempt
   * @param name what it did
   * @param attributes its attributes
   */
  public record SpanDraft(String spanId, String name, Map<String, Object> attributes) {}

  /**
   * What a dequeue hands a worker.
   *
   * @param rollout the rollout, now preparing
   * @param attempt its new attempt
   */
  public record Claim(Rollout rollout, Attempt attempt) {}

  /**
   * The spans an add stored, and those it found already there.
   *
   * @param stored the new spans, with their sequence ids
   * @param duplicates the span ids that were already stored, and were not stored again
   */
  public record AddedSpans(List<Span> stored, List<String> duplicates) {}
}
