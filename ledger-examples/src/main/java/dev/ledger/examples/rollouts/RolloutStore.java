package dev.ledger.examples.rollouts;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.common.base.Preconditions;
import com.google.common.hash.Hashing;
import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionReader;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.DocumentNotFoundException;
import dev.ledger.collections.Key;
import dev.ledger.collections.KeyValue;
import dev.ledger.collections.Query;
import dev.ledger.collections.QueryResult;
import dev.ledger.collections.Queue;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.View;
import dev.ledger.examples.rollouts.RolloutDocuments.AddedSpans;
import dev.ledger.examples.rollouts.RolloutDocuments.Attempt;
import dev.ledger.examples.rollouts.RolloutDocuments.AttemptStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Claim;
import dev.ledger.examples.rollouts.RolloutDocuments.ResourcesUpdate;
import dev.ledger.examples.rollouts.RolloutDocuments.Rollout;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutConfig;
import dev.ledger.examples.rollouts.RolloutDocuments.RolloutStatus;
import dev.ledger.examples.rollouts.RolloutDocuments.Span;
import dev.ledger.examples.rollouts.RolloutDocuments.SpanDraft;
import dev.ledger.examples.rollouts.RolloutDocuments.Worker;
import dev.ledger.examples.rollouts.RolloutDocuments.WorkerStatus;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * A training orchestrator's rollout store, rebuilt on one partition of a
 * {@link CollectionStore}: the bundle of the collection-store reference (rollouts, attempts,
 * spans, resources and workers collections, the rollout queue, the span sequence-id
 * counter), with its operations, <b>each one transaction</b>: whatever it reads and writes
 * across collections, queue and counter commits together or not at all, so a process killed
 * between two steps of an operation leaves nothing half done.
 *
 * <pre>
 * collection  record            primary key                      indexes
 * rollouts    Rollout           rolloutId                        status
 * attempts    Attempt           (rolloutId, attemptId)           status, sequenceId
 * spans       Span              (rolloutId, attemptId, spanId)   sequenceId
 * resources   ResourcesUpdate   resourcesId                      updateTime
 * workers     Worker            workerId                         status
 * queue       rolloutQueue      rollout ids, FIFO
 * key-value   spanSequenceIds   rollout id to the last span sequence id issued
 * </pre>
 *
 * <p><b>Where this differs from the reference</b>, on purpose:
 * <ul>
 *   <li>A dequeue pops the id and creates the attempt in one transaction (the reference does
 *       two steps, and a crash between them loses the rollout).</li>
 *   <li>Adding spans promotes a {@code QUEUING} rollout to {@code RUNNING} (the reference
 *       misspells the status there and never does).</li>
 *   <li>An empty dequeue marks the worker idle only when it is not already idle, so an idle
 *       worker's polls commit nothing.</li>
 *   <li>Attempt ids are derived from the rollout id and the sequence id (a hash), not drawn at
 *       random: a callback runs again after a conflict, and must produce the same writes.</li>
 *   <li>"Latest resources" compares update times as instants, in Java, not as strings.</li>
 * </ul>
 * Not rebuilt here: starting a rollout without the queue, manual retries and status changes
 * of rollouts (with the lifecycle guard they need), and waiting for rollouts (which would
 * follow the partition's change feed).
 *
 * <p>Thread-safe, and safe across processes: any number of store objects, in any processes,
 * may work on one partition.
 */
public final class RolloutStore {
  /** The collections, queue and counter of the bundle. */
  public static final Schema SCHEMA = Schema.builder()
      .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
      .collection("attempts", Attempt.class, List.of("rolloutId", "attemptId"),
          List.of("status", "sequenceId"))
      .collection("spans", Span.class, List.of("rolloutId", "attemptId", "spanId"),
          List.of("sequenceId"))
      .collection("resources", ResourcesUpdate.class, List.of("resourcesId"),
          List.of("updateTime"))
      .collection("workers", Worker.class, List.of("workerId"), List.of("status"))
      .queue("rolloutQueue", String.class)
      .keyValue("spanSequenceIds", String.class, Long.class)
      .build();

  private final CollectionStore db;
  private final String partition;
  private final Clock clock;
  private final Supplier<String> randomChars;

  /**
   * A rollout store on one partition.
   *
   * @param db a collection store with {@link #SCHEMA}
   * @param partition the partition
   * @param clock the time of every write
   * @param randomChars new random lower-case letters and digits for rollout and resources ids
   *     (at least 12 a call); seeded in tests
   */
  public RolloutStore(CollectionStore db, String partition, Clock clock,
      Supplier<String> randomChars) {
    Preconditions.checkArgument(db.schema().equals(SCHEMA), "the collection store's schema "
        + "is not RolloutStore.SCHEMA: %s", db.schema());
    this.db = db;
    this.partition = Preconditions.checkNotNull(partition, "partition");
    this.clock = Preconditions.checkNotNull(clock, "clock");
    this.randomChars = Preconditions.checkNotNull(randomChars, "randomChars");
  }

  // ------------------------------------------------------------------ resources

  /**
   * Adds a new set of resources at version 1.
   *
   * @param resources name to resource
   * @return what was stored
   */
  public ResourcesUpdate addResources(Map<String, JsonNode> resources) {
    String id = "rs-" + randomChars.get().substring(0, 12);
    return updateResources(id, resources);
  }

  /**
   * Writes a new version of a set of resources (version + 1, a new update time, the create
   * time kept), or creates it at version 1 if the id is unknown.
   *
   * @param resourcesId the id
   * @param resources name to resource
   * @return what was stored
   */
  public ResourcesUpdate updateResources(String resourcesId, Map<String, JsonNode> resources) {
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      Collection<ResourcesUpdate> all = tx.collection("resources", ResourcesUpdate.class);
      ResourcesUpdate next = all.get(Key.of(resourcesId))
          .map(old -> new ResourcesUpdate(resourcesId, old.createTime(), now,
              old.version() + 1, Map.copyOf(resources)))
          .orElse(new ResourcesUpdate(resourcesId, now, now, 1, Map.copyOf(resources)));
      all.upsert(List.of(next));
      return next;
    });
  }

  /** The resources with the newest update time, compared as instants. */
  private static Optional<ResourcesUpdate> latestResources(View view) {
    return view.collection("resources", ResourcesUpdate.class).query(Query.all()).items()
        .stream().max(Comparator.comparing(ResourcesUpdate::updateTime));
  }

  // ------------------------------------------------------------------ rollouts and the queue

  /**
   * Creates one {@code QUEUING} rollout per input, with start time now, the config and the
   * latest resources, and puts their ids on the queue in order; no attempt yet.
   *
   * @param inputs one input per rollout
   * @param mode {@code train}, {@code val}, {@code test}, or null
   * @param config the retry config of every one
   * @return the rollouts, in the order of the inputs
   */
  public List<Rollout> enqueueRollouts(List<JsonNode> inputs, String mode,
      RolloutConfig config) {
    Preconditions.checkArgument(config.maxAttempts() >= 1, "maxAttempts must be >= 1: %s",
        config.maxAttempts());
    // Ids are drawn before the transaction: its callback may run more than once.
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      ids.add("ro-" + randomChars.get().substring(0, 12));
    }
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      String resourcesId = latestResources(tx).map(ResourcesUpdate::resourcesId).orElse(null);
      List<Rollout> rollouts = new ArrayList<>();
      for (int i = 0; i < inputs.size(); i++) {
        rollouts.add(new Rollout(ids.get(i), inputs.get(i), now, null, mode, resourcesId,
            RolloutStatus.QUEUING, config, null));
      }
      tx.collection("rollouts", Rollout.class).insert(rollouts);
      tx.queue("rolloutQueue", String.class).enqueue(ids);
      return rollouts;
    });
  }

  /**
   * Gives a worker the oldest rollout waiting in the queue: pops ids, skipping those whose
   * rollout is no longer {@code QUEUING} or {@code REQUEUING}, and gives the first one a new
   * {@code PREPARING} attempt (sequence id: its attempts so far + 1) run by the worker; the
   * rollout becomes {@code PREPARING}, the worker {@code BUSY}. All in one transaction. An
   * empty queue marks the worker idle (if it was not) and returns nothing.
   *
   * @param workerId the worker
   * @return the claim, or empty if nothing waits
   */
  public Optional<Claim> dequeue(String workerId) {
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      Queue<String> queue = tx.queue("rolloutQueue", String.class);
      Collection<Rollout> rollouts = tx.collection("rollouts", Rollout.class);
      while (true) {
        List<String> popped = queue.dequeue(1);
        if (popped.isEmpty()) {
          Collection<Worker> workers = tx.collection("workers", Worker.class);
          Worker w = worker(workers, workerId);
          if (w.status() != WorkerStatus.IDLE) {
            workers.upsert(List.of(new Worker(workerId, WorkerStatus.IDLE,
                w.lastHeartbeatTime(), now, w.lastBusyTime(), now, null, null)));
          }
          return Optional.<Claim>empty();
        }
        Optional<Rollout> found = rollouts.get(Key.of(popped.get(0)));
        if (found.isEmpty() || (found.get().status() != RolloutStatus.QUEUING
            && found.get().status() != RolloutStatus.REQUEUING)) {
          continue; // a stale entry: the rollout moved on, or is gone
        }
        Rollout rollout = found.get().withStatus(RolloutStatus.PREPARING, now);
        int sequenceId = (int) attemptsOf(tx, rollout.rolloutId()).total() + 1;
        Attempt attempt = new Attempt(rollout.rolloutId(),
            attemptId(rollout.rolloutId(), sequenceId), sequenceId, now, null,
            AttemptStatus.PREPARING, workerId, null, null);
        tx.collection("attempts", Attempt.class).insert(List.of(attempt));
        rollouts.update(List.of(rollout));
        syncWorker(tx, attempt, now, true);
        return Optional.of(new Claim(rollout, attempt));
      }
    });
  }

  /**
   * The attempt id of a rollout's n-th attempt: {@code at-} and 8 hex digits of a hash of
   * both, so that a callback run again after a conflict makes the same id.
   */
  static String attemptId(String rolloutId, int sequenceId) {
    return "at-" + Hashing.sha256().hashString(rolloutId + "/" + sequenceId,
        StandardCharsets.UTF_8).toString().substring(0, 8);
  }

  private static QueryResult<Attempt> attemptsOf(View view,
      String rolloutId) {
    return view.collection("attempts", Attempt.class).query(Query.builder()
        .exact("rolloutId", rolloutId).sortDescending("sequenceId").build());
  }

  private static Worker worker(CollectionReader<Worker> workers, String workerId) {
    return workers.get(Key.of(workerId)).orElse(new Worker(workerId, WorkerStatus.UNKNOWN,
        null, null, null, null, null, null));
  }

  /**
   * Brings the attempt's worker in line with the attempt: succeeded or failed make it idle,
   * timeout or unresponsive unknown (both clearing its current ids), anything else busy on
   * this attempt. Other fields (heartbeats) are kept.
   */
  private static void syncWorker(Transaction tx, Attempt attempt, Instant now,
      boolean dequeued) {
    if (attempt.workerId() == null) {
      return;
    }
    Collection<Worker> workers = tx.collection("workers", Worker.class);
    Worker w = worker(workers, attempt.workerId());
    Instant dequeue = dequeued ? now : w.lastDequeueTime();
    Worker next = switch (attempt.status()) {
      case SUCCEEDED, FAILED -> new Worker(w.workerId(), WorkerStatus.IDLE,
          w.lastHeartbeatTime(), dequeue, w.lastBusyTime(), now, null, null);
      case TIMEOUT, UNRESPONSIVE -> new Worker(w.workerId(), WorkerStatus.UNKNOWN,
          w.lastHeartbeatTime(), dequeue, w.lastBusyTime(), w.lastIdleTime(), null, null);
      case PREPARING, RUNNING -> new Worker(w.workerId(), WorkerStatus.BUSY,
          w.lastHeartbeatTime(), dequeue, now, w.lastIdleTime(), attempt.rolloutId(),
          attempt.attemptId());
    };
    workers.upsert(List.of(next));
  }

  // ------------------------------------------------------------------ spans

  /**
   * Stores spans of an attempt, in one transaction: takes a block of sequence ids from the
   * rollout's counter (one per new span, in order), leaves out spans already stored (reported
   * as duplicates), then records a heartbeat: the attempt's last heartbeat becomes now, and a
   * {@code PREPARING} or {@code UNRESPONSIVE} attempt becomes {@code RUNNING}; if it is the
   * rollout's latest attempt and the rollout is {@code PREPARING}, {@code QUEUING} or
   * {@code REQUEUING}, the rollout becomes {@code RUNNING}.
   *
   * @param rolloutId the rollout
   * @param attemptId its attempt
   * @param drafts the spans
   * @return the spans stored, and the duplicates left out
   * @throws DocumentNotFoundException if the rollout or the attempt does not exist
   */
  public AddedSpans addSpans(String rolloutId, String attemptId, List<SpanDraft> drafts) {
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      Collection<Rollout> rollouts = tx.collection("rollouts", Rollout.class);
      Collection<Attempt> attempts = tx.collection("attempts", Attempt.class);
      Rollout rollout = rollouts.get(Key.of(rolloutId)).orElseThrow(
          () -> new DocumentNotFoundException(partition, "rollouts", "[\"" + rolloutId + "\"]"));
      Attempt attempt = attempts.get(Key.of(rolloutId, attemptId)).orElseThrow(
          () -> new DocumentNotFoundException(partition, "attempts",
              "[\"" + rolloutId + "\",\"" + attemptId + "\"]"));
      Collection<Span> spans = tx.collection("spans", Span.class);
      List<SpanDraft> fresh = new ArrayList<>();
      List<String> duplicates = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (SpanDraft d : drafts) {
        if (!seen.add(d.spanId()) || spans.get(Key.of(rolloutId, attemptId, d.spanId()))
            .isPresent()) {
          duplicates.add(d.spanId());
        } else {
          fresh.add(d);
        }
      }
      List<Span> stored = new ArrayList<>();
      if (!fresh.isEmpty()) {
        KeyValue<String, Long> counter = tx.keyValue("spanSequenceIds", String.class,
            Long.class);
        long last = counter.inc(rolloutId, (long) fresh.size());
        long next = last - fresh.size() + 1;
        for (SpanDraft d : fresh) {
          stored.add(new Span(rolloutId, attemptId, d.spanId(), next++, rolloutId,
              null, d.name(), "OK", d.attributes(), now, now));
        }
        spans.insert(stored);
      }
      AttemptStatus status = attempt.status() == AttemptStatus.PREPARING
          || attempt.status() == AttemptStatus.UNRESPONSIVE ? AttemptStatus.RUNNING
          : attempt.status();
      Attempt beat = new Attempt(rolloutId, attemptId, attempt.sequenceId(),
          attempt.startTime(), attempt.endTime(), status, attempt.workerId(), now,
          attempt.metadata());
      attempts.update(List.of(beat));
      if (status != attempt.status()) {
        syncWorker(tx, beat, now, false);
      }
      boolean latest = attemptsOf(tx, rolloutId).items().get(0).attemptId().equals(attemptId);
      if (latest && (rollout.status() == RolloutStatus.PREPARING
          || rollout.status() == RolloutStatus.QUEUING
          || rollout.status() == RolloutStatus.REQUEUING)) {
        rollouts.update(List.of(rollout.withStatus(RolloutStatus.RUNNING, now)));
      }
      return new AddedSpans(stored, duplicates);
    });
  }

  // ------------------------------------------------------------------ attempts

  /**
   * Sets an attempt's status, in one transaction. {@code FAILED} and {@code SUCCEEDED} set its
   * end time. If it is the rollout's latest attempt, the rollout follows: {@code PREPARING},
   * {@code RUNNING} and {@code SUCCEEDED} are copied; {@code FAILED}, {@code TIMEOUT} and
   * {@code UNRESPONSIVE} make it {@code REQUEUING} (and put its id on the queue, once) when the
   * status is in its retry condition and attempts remain, and {@code FAILED} otherwise. The
   * attempt's worker is synced.
   *
   * @param rolloutId the rollout
   * @param attemptId the attempt, or {@code latest}
   * @param status the new status
   * @return the attempt as stored
   * @throws DocumentNotFoundException if the rollout or the attempt does not exist
   */
  public Attempt updateAttempt(String rolloutId, String attemptId, AttemptStatus status) {
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      Rollout rollout = tx.collection("rollouts", Rollout.class).get(Key.of(rolloutId))
          .orElseThrow(() -> new DocumentNotFoundException(partition, "rollouts",
              "[\"" + rolloutId + "\"]"));
      List<Attempt> all = attemptsOf(tx, rolloutId).items();
      Attempt latest = all.isEmpty() ? null : all.get(0);
      Attempt attempt = "latest".equals(attemptId) ? latest
          : tx.collection("attempts", Attempt.class).get(Key.of(rolloutId, attemptId))
              .orElse(null);
      if (attempt == null) {
        throw new DocumentNotFoundException(partition, "attempts",
            "[\"" + rolloutId + "\",\"" + attemptId + "\"]");
      }
      return setStatus(tx, rollout, attempt, attempt.attemptId().equals(latest.attemptId()),
          status, now);
    });
  }

  /** The common path of an attempt's status change; see {@link #updateAttempt}. */
  private static Attempt setStatus(Transaction tx, Rollout rollout, Attempt attempt,
      boolean latest, AttemptStatus status, Instant now) {
    boolean ends = status == AttemptStatus.FAILED || status == AttemptStatus.SUCCEEDED;
    Attempt next = new Attempt(attempt.rolloutId(), attempt.attemptId(), attempt.sequenceId(),
        attempt.startTime(), ends ? now : attempt.endTime(), status, attempt.workerId(),
        attempt.lastHeartbeatTime(), attempt.metadata());
    tx.collection("attempts", Attempt.class).update(List.of(next));
    syncWorker(tx, next, now, false);
    if (latest && !rollout.status().terminal()) {
      RolloutStatus follows = switch (status) {
        case PREPARING -> RolloutStatus.PREPARING;
        case RUNNING -> RolloutStatus.RUNNING;
        case SUCCEEDED -> RolloutStatus.SUCCEEDED;
        case FAILED, TIMEOUT, UNRESPONSIVE ->
            rollout.config().retryCondition().contains(status)
                && next.sequenceId() < rollout.config().maxAttempts()
                ? RolloutStatus.REQUEUING : RolloutStatus.FAILED;
      };
      tx.collection("rollouts", Rollout.class).update(List.of(rollout.withStatus(follows,
          now)));
      Queue<String> queue = tx.queue("rolloutQueue", String.class);
      if (follows == RolloutStatus.REQUEUING && !queue.has(rollout.rolloutId())) {
        queue.enqueue(List.of(rollout.rolloutId()));
      }
    }
    return next;
  }

  /**
   * The watchdog, in one transaction: for the latest attempt of each {@code PREPARING} or
   * {@code RUNNING} rollout, if it is still preparing or running, {@code TIMEOUT} when it has
   * run longer than the rollout's {@code timeoutSeconds}, else {@code UNRESPONSIVE} when its
   * last heartbeat (or its start, without one) is older than {@code unresponsiveSeconds};
   * each change goes through the path of {@link #updateAttempt}, so a retry requeues the
   * rollout. The reference runs it before most operations, debounced across callers; here
   * callers decide when to run it ({@link RolloutLifecycle} runs it once its killed worker
   * has been silent long enough).
   *
   * @return the attempts it changed
   */
  public List<Attempt> watchdog() {
    return db.execute(partition, tx -> {
      Instant now = clock.instant();
      List<Attempt> changed = new ArrayList<>();
      List<Rollout> active = tx.collection("rollouts", Rollout.class).query(Query.builder()
          .within("status", List.of(RolloutStatus.PREPARING.name(),
              RolloutStatus.RUNNING.name())).build()).items();
      for (Rollout r : active) {
        List<Attempt> all = attemptsOf(tx, r.rolloutId()).items();
        if (all.isEmpty()) {
          continue;
        }
        Attempt latest = all.get(0);
        if (latest.status() != AttemptStatus.PREPARING
            && latest.status() != AttemptStatus.RUNNING) {
          continue;
        }
        Long timeout = r.config().timeoutSeconds();
        Long silence = r.config().unresponsiveSeconds();
        Instant heard = latest.lastHeartbeatTime() != null ? latest.lastHeartbeatTime()
            : latest.startTime();
        AttemptStatus verdict = null;
        if (timeout != null && latest.startTime().plusSeconds(timeout).isBefore(now)) {
          verdict = AttemptStatus.TIMEOUT;
        } else if (silence != null && heard.plusSeconds(silence).isBefore(now)) {
          verdict = AttemptStatus.UNRESPONSIVE;
        }
        if (verdict != null) {
          changed.add(setStatus(tx, r, latest, true, verdict, now));
        }
      }
      return changed;
    });
  }

  // ------------------------------------------------------------------ reads

  /**
   * Reads the partition in one consistent snapshot.
   *
   * @param work what to read
   * @param <R> what it returns
   * @return what {@code work} returned
   */
  public <R> R read(Function<? super View, ? extends R> work) {
    return db.read(partition, work);
  }

  /**
   * Whether every rollout has ended (none is waiting or running).
   *
   * @return true if every rollout's status is terminal
   */
  public boolean allEnded() {
    return read(v -> {
      CollectionReader<Rollout> rollouts = v.collection("rollouts", Rollout.class);
      long ended = rollouts.query(Query.builder().within("status", List.of(
          RolloutStatus.SUCCEEDED.name(), RolloutStatus.FAILED.name(),
          RolloutStatus.CANCELLED.name())).limit(0).build()).total();
      return ended == rollouts.size();
    });
  }
}
