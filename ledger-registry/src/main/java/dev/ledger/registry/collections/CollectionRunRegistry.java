package dev.ledger.registry.collections;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.base.Preconditions;
import dev.ledger.collections.Collection;
import dev.ledger.collections.CollectionOptions;
import dev.ledger.collections.CollectionReader;
import dev.ledger.collections.CollectionStore;
import dev.ledger.collections.Key;
import dev.ledger.collections.Query;
import dev.ledger.collections.Schema;
import dev.ledger.collections.Transaction;
import dev.ledger.collections.View;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.lifecycle.Lifecycle;
import dev.ledger.core.lifecycle.StatusChanged;
import dev.ledger.core.lifecycle.Transition;
import dev.ledger.core.spi.PatchLogSource;
import dev.ledger.registry.DuplicateRunException;
import dev.ledger.registry.Lineage;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunDataTooLargeException;
import dev.ledger.registry.RunEvent;
import dev.ledger.registry.RunFilters;
import dev.ledger.registry.RunNotActiveException;
import dev.ledger.registry.RunNotFoundException;
import dev.ledger.registry.RunOwner;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunRegistry;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.StaleRunRevisionException;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.UnknownWorkspaceException;
import dev.ledger.registry.Workspace;
import dev.ledger.registry.WorkspaceConflictException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Function;

/**
 * The {@link RunRegistry} on ledger-collections: the whole registry is one partition (one
 * ledger) of a {@link PatchLogCollectionStore}, so every write is one atomic commit and
 * readers in other processes catch up by reading the commits after the ones they saw.
 *
 * <p><b>Layout</b> of the partition ({@link RegistryOptions#partition()}):
 * <pre>
 * workspaces  key [id]               WorkspaceDoc {id, canonicalPath, displayName,
 *                                                  createdAtMs, lastSeenAtMs}
 *             index canonicalPath
 * runs        key [id]               RunDoc {id, workspaceId, externalRunId, firstRunId,
 *                                            attemptNumber, binding, pipeline, workflow,
 *                                            status, revision, planChecksum, request,
 *                                            commandArgv, runRelativePath,
 *                                            approvedPlanRelativePath, launchLogRelativePath,
 *                                            owner, ownerImplementation, pid, startedAtMs,
 *                                            completedAtMs, returnCode, failureSummary,
 *                                            cancelRequestedAtMs, createdAtMs, updatedAtMs}
 *             indexes status, workspaceId, externalRunId, firstRunId, ownerImplementation,
 *             runRelativePath
 * runEvents   key [runId, sequence]  EventDoc {runId, sequence, type, from, to, details,
 *                                              createdAtMs}
 *             index runId
 * </pre>
 * Statuses are stored by their wire names; times are epoch milliseconds of the store's clock
 * ({@code LedgerOptions.clock()}). A transition writes the run document and its event in one
 * commit, so the partition's journal (its change feed) holds every event next to the status
 * it produced; {@code runEvents.sequence} equals the run's {@code revision} after the event.
 *
 * <p><b>Checkpoints.</b> The partition is checkpointed when the journal since the last
 * checkpoint exceeds both its data bytes and {@value #CHECKPOINT_FLOOR_BYTES} bytes (64 MiB,
 * one journal segment), where a collection store's default floor is 64 KiB. A checkpoint
 * rewrites the whole partition on the committing thread; a registry of a few thousand runs
 * (a few MB) would otherwise write one every few thousand transitions, while a transition's
 * journal record is about 1.4 KB. So a cold open reads the checkpoint and at most
 * max(64 MiB, data bytes) of journal after it; a registry larger than 64 MiB checkpoints as a
 * collection store does by default.
 *
 * <p><b>Queries.</b> Lookups by id, external id, lineage and status use the collections'
 * secondary indexes. Ordered listings ({@link #listRuns}, {@link #listRecentLineages}) come
 * from an in-memory ordered index of this object, kept current by this object's own commits
 * and rebuilt from the partition when another writer moved it (see {@link RunOrder}).
 *
 * <p>Thread-safe. Several objects and processes may share a registry.
 */
public final class CollectionRunRegistry implements RunRegistry {
  static final String WORKSPACES = "workspaces";
  static final String RUNS = "runs";
  static final String EVENTS = "runEvents";

  /** The schema of a registry partition. */
  static final Schema SCHEMA = Schema.builder()
      .collection(WORKSPACES, ObjectNode.class, List.of("id"), List.of("canonicalPath"))
      .collection(RUNS, ObjectNode.class, List.of("id"), List.of("status", "workspaceId",
          "externalRunId", "firstRunId", "ownerImplementation", "runRelativePath"))
      .collection(EVENTS, ObjectNode.class, List.of("runId", "sequence"), List.of("runId"))
      .build();

  /** The checkpoint floor of the registry's partition: see the class comment. */
  static final long CHECKPOINT_FLOOR_BYTES = 64L << 20;

  /** The collection options of the registry's partition. */
  private static final CollectionOptions COLLECTION_OPTIONS = CollectionOptions.defaults()
      .withCheckpoints(CollectionOptions.defaults().checkpointFraction(),
          CHECKPOINT_FLOOR_BYTES);

  private static final int MAX_ID_LENGTH = 200;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CollectionStore store;
  private final Clock clock;
  private final RegistryOptions options;
  private final RunOrder order = new RunOrder();

  private CollectionRunRegistry(CollectionStore store, Clock clock, RegistryOptions options) {
    this.store = store;
    this.clock = clock;
    this.options = options;
  }

  /**
   * A registry with default options on a ledger store.
   *
   * @param ledgers the store that holds the registry's partition
   * @param <S> a ledger store that is also a patch log source (the file and in-memory stores)
   * @return the registry
   * @throws NullPointerException if {@code ledgers} is null
   */
  public static <S extends LedgerStore & PatchLogSource> CollectionRunRegistry on(S ledgers) {
    return on(ledgers, RegistryOptions.defaults());
  }

  /**
   * A registry on a ledger store. Nothing is written until the first write.
   *
   * @param ledgers the store that holds the registry's partition
   * @param options the partition and workspace roots
   * @param <S> a ledger store that is also a patch log source (the file and in-memory stores)
   * @return the registry
   * @throws NullPointerException if an argument is null
   * @throws dev.ledger.core.InvalidIdentifierException if the partition is not a valid root id
   */
  public static <S extends LedgerStore & PatchLogSource> CollectionRunRegistry on(S ledgers,
      RegistryOptions options) {
    Preconditions.checkNotNull(ledgers, "ledgers");
    Preconditions.checkNotNull(options, "options");
    return new CollectionRunRegistry(PatchLogCollectionStore.on(ledgers, SCHEMA,
        COLLECTION_OPTIONS),
        ledgers.options().clock(), options);
  }

  /**
   * The schema of a registry partition, for tools that read it with a collection store.
   *
   * @return the schema
   */
  public static Schema schema() {
    return SCHEMA;
  }

  /**
   * The options this registry was opened with.
   *
   * @return the options
   */
  public RegistryOptions options() {
    return options;
  }

  @Override
  public Workspace registerWorkspace(String workspaceId, Path path) {
    checkId("workspaceId", workspaceId);
    Preconditions.checkNotNull(path, "path");
    Path canonical = WorkspacePaths.canonicalWorkspace(path, options.workspaceRoots());
    String canonicalPath = canonical.toString();
    String display = canonical.getFileName() == null ? canonicalPath
        : canonical.getFileName().toString();
    return RunDocuments.toWorkspace(write(tx -> {
      Collection<ObjectNode> workspaces = tx.collection(WORKSPACES, ObjectNode.class);
      long now = clock.millis();
      Optional<WorkspaceDoc> owner = workspaces.get(Query.builder()
          .exact("canonicalPath", canonicalPath).build()).map(RunTrees::workspace);
      if (owner.isPresent() && !owner.get().id().equals(workspaceId)) {
        throw new WorkspaceConflictException(canonicalPath, owner.get().id(), workspaceId);
      }
      Optional<WorkspaceDoc> existing = workspaces.get(Key.of(workspaceId))
          .map(RunTrees::workspace);
      WorkspaceDoc doc = new WorkspaceDoc(workspaceId, canonicalPath, display,
          existing.map(WorkspaceDoc::createdAtMs).orElse(now), now);
      workspaces.upsert(List.of(RunTrees.tree(doc)));
      return doc;
    }));
  }

  @Override
  public Optional<Workspace> workspace(String workspaceId) {
    Preconditions.checkNotNull(workspaceId, "workspaceId");
    return read(view -> workspaces(view).get(Key.of(workspaceId)).map(RunTrees::workspace)
        .map(RunDocuments::toWorkspace));
  }

  @Override
  public RunRecord allocateRun(NewRun run) {
    Preconditions.checkNotNull(run, "run");
    checkId("externalRunId", run.externalRunId());
    checkSize("request", run.request(), MAX_REQUEST_BYTES);
    String id = UUID.randomUUID().toString();
    return write(tx -> {
      WorkspaceDoc workspace = tx.collection(WORKSPACES, ObjectNode.class)
          .get(Key.of(run.workspaceId())).map(RunTrees::workspace)
          .orElseThrow(() -> new UnknownWorkspaceException(run.workspaceId()));
      Path dir = Path.of(workspace.canonicalPath());
      String runPath = WorkspacePaths.relative(dir, "runRelativePath", run.runRelativePath());
      String planPath = WorkspacePaths.relative(dir, "approvedPlanRelativePath",
          run.approvedPlanRelativePath());
      String logPath = WorkspacePaths.relative(dir, "launchLogRelativePath",
          run.launchLogRelativePath());
      Collection<ObjectNode> runs = tx.collection(RUNS, ObjectNode.class);
      Optional<ObjectNode> existing = runs.get(Query.builder()
          .exact("externalRunId", run.externalRunId()).build());
      if (existing.isPresent()) {
        throw new DuplicateRunException(run.externalRunId(),
            RunTrees.text(existing.get(), "id"));
      }
      long now = clock.millis();
      RunDoc doc = new RunDoc(id, run.workspaceId(), run.externalRunId(),
          run.firstRunId() == null ? run.externalRunId() : run.firstRunId(),
          run.attemptNumber(), run.binding(), run.pipeline(), run.workflow(),
          RunStatus.STARTING, 1, run.planChecksum(), run.request(), run.commandArgv(),
          runPath, planPath, logPath, run.owner(),
          run.owner() == null ? null : run.owner().implementation(), null, null, null, null,
          null, null, now, now);
      runs.insert(List.of(RunTrees.tree(doc)));
      tx.collection(EVENTS, ObjectNode.class).insert(List.of(RunTrees.event(id, 1,
          RunEvent.RUN_ALLOCATED, null, RunStatus.STARTING,
          JsonNodeFactory.instance.objectNode(), now)));
      return new Written(tx.revision(), doc, RunDocuments.toRecord(doc,
          workspace.canonicalPath()), true);
    }).record(this);
  }

  @Override
  public Optional<RunRecord> run(String registryRunId) {
    Preconditions.checkNotNull(registryRunId, "registryRunId");
    return read(view -> runs(view).get(Key.of(registryRunId)).map(tree -> record(view, RunTrees.doc(tree))));
  }

  @Override
  public Optional<RunRecord> runByExternalId(String externalRunId) {
    Preconditions.checkNotNull(externalRunId, "externalRunId");
    return read(view -> runs(view).get(Query.builder().exact("externalRunId", externalRunId)
        .build()).map(tree -> record(view, RunTrees.doc(tree))));
  }

  @Override
  public Optional<RunRecord> runByDirectory(String workspaceId, String runRelativePath) {
    Preconditions.checkNotNull(workspaceId, "workspaceId");
    Preconditions.checkNotNull(runRelativePath, "runRelativePath");
    String normalized = normalize(runRelativePath);
    return read(view -> runs(view).get(Query.builder().exact("runRelativePath", normalized)
        .exact("workspaceId", workspaceId).build()).map(tree -> record(view, RunTrees.doc(tree))));
  }

  @Override
  public Optional<RunRecord> firstRun(String firstRunId) {
    Preconditions.checkNotNull(firstRunId, "firstRunId");
    return read(view -> runs(view).get(Query.builder().exact("firstRunId", firstRunId)
        .exact("externalRunId", firstRunId).exact("attemptNumber", 1).build())
        .map(tree -> record(view, RunTrees.doc(tree))));
  }

  @Override
  public Optional<RunRecord> latestAttempt(String firstRunId) {
    Preconditions.checkNotNull(firstRunId, "firstRunId");
    return read(view -> runs(view).get(Query.builder().exact("firstRunId", firstRunId)
        .sortDescending("attemptNumber").build()).map(tree -> record(view, RunTrees.doc(tree))));
  }

  @Override
  public List<RunRecord> listRuns(RunFilters filters, int limit) {
    Preconditions.checkNotNull(filters, "filters");
    int bounded = Math.max(MIN_LIST_LIMIT, Math.min(limit, MAX_LIST_LIMIT));
    return read(view -> {
      List<RunRecord> out = new ArrayList<>();
      Map<String, String> paths = new HashMap<>();
      for (RunDoc doc : order.current(view).newestFirst(view, filters, bounded)) {
        out.add(RunDocuments.toRecord(doc, paths.computeIfAbsent(doc.workspaceId(),
            id -> workspacePath(view, doc))));
      }
      return out;
    });
  }

  @Override
  public List<Lineage> listRecentLineages(int lineages, int attemptsPerLineage) {
    int lineageLimit = Math.max(1, Math.min(lineages, MAX_LINEAGES));
    int attemptLimit = Math.max(1, Math.min(attemptsPerLineage, MAX_ATTEMPTS_PER_LINEAGE));
    return read(view -> {
      List<Lineage> out = new ArrayList<>();
      Map<String, String> paths = new HashMap<>();
      for (RunOrder.LineageHead head : order.current(view).recentLineages(lineageLimit)) {
        List<RunDoc> attempts = new ArrayList<>();
        for (ObjectNode tree : runs(view).query(Query.builder()
            .exact("firstRunId", head.firstRunId()).sortDescending("attemptNumber")
            .limit(attemptLimit).build()).items()) {
          attempts.add(RunTrees.doc(tree));
        }
        Collections.reverse(attempts);
        List<RunRecord> records = new ArrayList<>();
        attempts.forEach(doc -> records.add(RunDocuments.toRecord(doc,
            paths.computeIfAbsent(doc.workspaceId(), id -> workspacePath(view, doc)))));
        out.add(new Lineage(head.firstRunId(), Instant.ofEpochMilli(head.updatedAtMs()),
            records));
      }
      return out;
    });
  }

  @Override
  public boolean hasActiveRuns(String implementation) {
    Preconditions.checkNotNull(implementation, "implementation");
    // The status index comes first: the candidates are the active runs, not every run the
    // implementation ever owned.
    return read(view -> runs(view).get(Query.builder()
        .within("status", new ArrayList<>(activeStatuses()))
        .exact("ownerImplementation", implementation).build()).isPresent());
  }

  @Override
  public List<RunRecord> listDaemonOwnedActiveRuns(RunFilters scope) {
    Preconditions.checkNotNull(scope, "scope");
    RunFilters active = scope.withStatuses(activeStatuses());
    return read(view -> {
      List<RunRecord> out = new ArrayList<>();
      for (ObjectNode tree : runs(view).query(RunOrder.query(active).build()).items()) {
        RunDoc doc = RunTrees.doc(tree);
        if (doc.owner() != null && !doc.owner().instanceId().isEmpty()
            && doc.owner().targetId().equals(RunOwner.LOCAL_TARGET)) {
          out.add(record(view, doc));
        }
      }
      out.sort(Comparator.comparing(RunRecord::createdAt)
          .thenComparing(RunRecord::id));
      return out;
    });
  }

  @Override
  public RunRecord setRunPid(String registryRunId, Long pid) {
    Preconditions.checkNotNull(registryRunId, "registryRunId");
    Preconditions.checkArgument(pid == null || pid > 0, "pid must be positive: %s", pid);
    return write(tx -> {
      Collection<ObjectNode> runs = tx.collection(RUNS, ObjectNode.class);
      RunDoc doc = RunTrees.doc(runs.get(Key.of(registryRunId))
          .orElseThrow(() -> new RunNotFoundException(registryRunId)));
      if (doc.status().isTerminal()) {
        throw new RunNotActiveException(registryRunId, doc.status());
      }
      RunDoc updated = doc.withPid(pid);
      boolean changed = !updated.equals(doc);
      if (changed) {
        // Only the pid: a null pid names the field without a value, which removes it.
        ObjectNode change = JsonNodeFactory.instance.objectNode();
        change.put("id", registryRunId);
        RunTrees.number(change, RunTrees.PID, pid);
        runs.update(List.of(change), List.of(RunTrees.PID));
      }
      return new Written(tx.revision(), updated, record(tx, updated), changed);
    }).record(this);
  }

  @Override
  public RunRecord transitionRun(String registryRunId, RunStatus to, long expectedRevision,
      TransitionDetails details) {
    Preconditions.checkNotNull(registryRunId, "registryRunId");
    Preconditions.checkNotNull(to, "to");
    Preconditions.checkNotNull(details, "details");
    ObjectNode eventDetails = JsonNodeFactory.instance.objectNode();
    eventDetails.setAll((ObjectNode) details.extra());
    if (!eventDetails.isEmpty()) {
      // "{}" is within any limit; most transitions carry no extra details, and serializing
      // them only to measure them was ~3% of a transition's CPU.
      checkSize("details", eventDetails, MAX_DETAILS_BYTES);
    }
    if (details.returnCode() != null) {
      eventDetails.put("returnCode", details.returnCode());
    }
    Lifecycle<RunStatus> lifecycle = RunStatus.lifecycle();
    Optional<Written> result = writeOptional(tx -> {
      Collection<ObjectNode> runs = tx.collection(RUNS, ObjectNode.class);
      // The stored run, a copy that is this call's own: only the fields the transition
      // checks are read, and only those it changes are written (a partial update), not the
      // whole run both ways.
      ObjectNode stored = runs.get(Key.of(registryRunId))
          .orElseThrow(() -> new RunNotFoundException(registryRunId));
      RunStatus from = RunTrees.status(stored);
      long now = clock.millis();
      Transition<RunStatus> step = lifecycle.transition(from, to,
          RunTransitions.stamped(stored), Instant.ofEpochMilli(now), registryRunId);
      if (step.isNoOp()) {
        return Optional.empty();
      }
      long current = stored.path(RunTrees.REVISION).asLong();
      if (current != expectedRevision) {
        throw new StaleRunRevisionException(registryRunId, expectedRevision, current);
      }
      long revision = current + 1;
      RunTransitions.Change change = RunTransitions.change(registryRunId, step, revision, now,
          details);
      runs.updateFields(List.of(change.tree()), change.fields());
      // The run as stored now is the copy read above with the change applied: built here
      // instead of having the update hand back another copy of the whole run.
      RunDoc next = RunTrees.doc(change.applyTo(stored));
      tx.collection(EVENTS, ObjectNode.class).insert(List.of(RunTrees.event(registryRunId,
          revision, StatusChanged.TYPE, from, to, eventDetails, now)));
      return Optional.of(new Written(tx.revision(), next, record(tx, next), true));
    });
    return result.map(w -> w.record(this)).orElseGet(() -> run(registryRunId)
        .orElseThrow(() -> new RunNotFoundException(registryRunId)));
  }

  @Override
  public List<RunEvent> runEvents(String registryRunId) {
    Preconditions.checkNotNull(registryRunId, "registryRunId");
    return read(view -> {
      List<RunEvent> out = new ArrayList<>();
      for (ObjectNode tree : view.collection(EVENTS, ObjectNode.class).query(Query.builder()
          .exact("runId", registryRunId).sortAscending("sequence").build()).items()) {
        EventDoc doc = RunTrees.eventDoc(tree);
        out.add(new RunEvent(doc.runId(), doc.sequence(), doc.type(), doc.from(), doc.to(),
            doc.details() == null ? JsonNodeFactory.instance.objectNode() : doc.details(),
            Instant.ofEpochMilli(doc.createdAtMs())));
      }
      return out;
    });
  }

  /**
   * A committed write: the revision the transaction read, the run it wrote, and that run as
   * the caller gets it (built inside the transaction, while the stored tree is the run's).
   */
  private record Written(long readRevision, RunDoc doc, RunRecord result, boolean wrote) {
    RunRecord record(CollectionRunRegistry registry) {
      registry.order.committed(readRevision, doc, wrote);
      return result;
    }
  }

  private <R> R write(Function<? super Transaction, ? extends R> work) {
    return store.execute(options.partition(), work);
  }

  private Optional<Written> writeOptional(
      Function<? super Transaction, Optional<Written>> work) {
    return store.execute(options.partition(), work);
  }

  private <R> R read(Function<? super View, ? extends R> work) {
    return store.read(options.partition(), work);
  }

  static CollectionReader<ObjectNode> runs(View view) {
    return view.collection(RUNS, ObjectNode.class);
  }

  private static CollectionReader<ObjectNode> workspaces(View view) {
    return view.collection(WORKSPACES, ObjectNode.class);
  }

  private static String workspacePath(View view, RunDoc doc) {
    return workspaces(view).get(Key.of(doc.workspaceId()))
        .map(tree -> RunTrees.text(tree, "canonicalPath")).orElse("");
  }

  private static RunRecord record(View view, RunDoc doc) {
    return RunDocuments.toRecord(doc, workspacePath(view, doc));
  }

  static Set<RunStatus> activeStatuses() {
    Set<RunStatus> out = EnumSet.noneOf(RunStatus.class);
    for (RunStatus status : RunStatus.values()) {
      if (!status.isTerminal()) {
        out.add(status);
      }
    }
    return out;
  }

  private static void checkId(String field, String id) {
    Preconditions.checkNotNull(id, field);
    Preconditions.checkArgument(!id.isEmpty() && id.length() <= MAX_ID_LENGTH,
        "%s must have 1 to %s characters: '%s'", field, MAX_ID_LENGTH, id);
  }

  private static void checkSize(String field, JsonNode value, int limit) {
    int size;
    try {
      size = JSON.writeValueAsString(value).getBytes(StandardCharsets.UTF_8).length;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(field + " cannot be written as JSON", e);
    }
    if (size > limit) {
      throw new RunDataTooLargeException(field, size, limit);
    }
  }

  private static String normalize(String relative) {
    try {
      return Path.of(relative).normalize().toString().replace(
          java.io.File.separator, "/");
    } catch (java.nio.file.InvalidPathException e) {
      return relative;
    }
  }
}
