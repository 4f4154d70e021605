package dev.ledger.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.lifecycle.InvalidTransitionException;
import dev.ledger.core.lifecycle.StatusChanged;
import dev.ledger.core.lifecycle.UnknownStateException;
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
import dev.ledger.registry.WorkspacePathException;
import dev.ledger.testing.base.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The behaviour every {@link RunRegistry} must show: the reference run registry's behaviours,
 * one test each, named after it, plus the refusals of bad input (a typed error, nothing
 * written). After every test, {@link JournalLifecycleCheck} replays the registry partition's
 * journal and checks each transition against the run lifecycle. A backend runs it by
 * extending this class and implementing {@link #openStore} and {@link #registry}; a
 * persistent backend also overrides {@link #openSecond}.
 */
public abstract class RunRegistryContractTest {
  /** For subclasses, one per store implementation. */
  protected RunRegistryContractTest() {}

  /** Where the contract clock starts. */
  protected static final Instant START = Instant.parse("2026-11-30T12:00:00Z");

  /** The clock every test's store reads; tests move it. */
  protected final MutableClock clock = new MutableClock(START);

  /** The store under test: opened before each test, closed after it. */
  protected LedgerStore store;

  /** A directory for workspaces, fresh per test. */
  @TempDir protected Path workspaces;

  private final List<LedgerStore> seconds = new ArrayList<>();
  private RunRegistry registry;
  private Path ws;

  /**
   * Opens a fresh, empty store.
   *
   * @param options the options it must use (they carry the test's clock)
   * @return a new store holding no ledger
   */
  protected abstract LedgerStore openStore(LedgerOptions options);

  /**
   * A registry on {@code on}, which this suite opened through {@link #openStore} or
   * {@link #openSecond}: typically {@code CollectionRunRegistry.on((TheStore) on, options)}.
   *
   * @param on the ledger store
   * @param options the registry options
   * @return the registry
   */
  protected abstract RunRegistry registry(LedgerStore on, RegistryOptions options);

  /**
   * Another store object on the data of {@link #store}, as another process would open it.
   * The default, for in-memory stores, returns {@link #store} itself.
   *
   * @return the second store; the suite closes it if it is not {@link #store}
   */
  protected LedgerStore openSecond() {
    return store;
  }

  /**
   * The options every test's store is opened with.
   *
   * @return the defaults on {@link #clock} with a 10 s lock wait
   */
  protected LedgerOptions options() {
    return LedgerOptions.defaults().withClock(clock).withLockTimeout(Duration.ofSeconds(10));
  }

  @BeforeEach
  void openFresh() throws IOException {
    store = openStore(options());
    registry = registry(store, RegistryOptions.defaults());
    ws = Files.createDirectories(workspaces.resolve("ws-1"));
  }

  @AfterEach
  void replayJournalAndClose() {
    try {
      if (store != null) {
        JournalLifecycleCheck.check(store, RegistryOptions.DEFAULT_PARTITION);
      }
    } finally {
      for (LedgerStore second : seconds) {
        if (second != store) {
          second.close();
        }
      }
      if (store != null) {
        store.close();
      }
    }
  }

  private RunRegistry second() {
    LedgerStore other = openSecond();
    seconds.add(other);
    return registry(other, RegistryOptions.defaults());
  }

  private long partitionRevision() {
    return store.head(RegistryOptions.DEFAULT_PARTITION).map(h -> h.revision()).orElse(0L);
  }

  private RunRecord allocate(String runId) {
    return registry.allocateRun(NewRun.builder("w1", runId).binding("b1").pipeline("p1")
        .build());
  }

  private void workspace() {
    registry.registerWorkspace("w1", ws);
  }

  private void tick() {
    clock.advance(Duration.ofSeconds(1));
  }

  // ---- workspaces -----------------------------------------------------------------------

  @Test
  void registerWorkspaceStoresTheCanonicalPath() throws IOException {
    Workspace w = registry.registerWorkspace("w1", ws.resolve("..").resolve("ws-1"));
    assertThat(w.canonicalPath()).isEqualTo(ws.toRealPath().toString());
    assertThat(w.displayName()).isEqualTo("ws-1");
    assertThat(w.createdAt()).isEqualTo(START);
    assertThat(registry.workspace("w1")).contains(w);
  }

  @Test
  void registeringTheSameIdAndPathAgainIsIdempotent() {
    Workspace first = registry.registerWorkspace("w1", ws);
    tick();
    Workspace again = registry.registerWorkspace("w1", ws);
    assertThat(again.canonicalPath()).isEqualTo(first.canonicalPath());
    assertThat(again.createdAt()).isEqualTo(first.createdAt());
    assertThat(again.lastSeenAt()).isEqualTo(START.plusSeconds(1));
  }

  @Test
  void anotherIdOnTheSamePathIsAConflictAndWritesNothing() {
    registry.registerWorkspace("w1", ws);
    long before = partitionRevision();
    assertThatThrownBy(() -> registry.registerWorkspace("w2", ws))
        .isInstanceOfSatisfying(WorkspaceConflictException.class, e -> {
          assertThat(e.ownerId()).isEqualTo("w1");
          assertThat(e.requestedId()).isEqualTo("w2");
        });
    assertThat(partitionRevision()).isEqualTo(before);
    assertThat(registry.workspace("w2")).isEmpty();
  }

  @Test
  void theSameIdOnANewPathMovesTheWorkspace() throws IOException {
    registry.registerWorkspace("w1", ws);
    Path other = Files.createDirectories(workspaces.resolve("ws-2"));
    Workspace moved = registry.registerWorkspace("w1", other);
    assertThat(moved.canonicalPath()).isEqualTo(other.toRealPath().toString());
    registry.registerWorkspace("w3", ws);
  }

  @Test
  void aWorkspaceThatIsASymbolicLinkIsRefusedAndNothingIsWritten() throws IOException {
    Path link = workspaces.resolve("link");
    try {
      Files.createSymbolicLink(link, ws);
    } catch (UnsupportedOperationException | IOException e) {
      return; // this file system cannot make links; nothing to test
    }
    assertThatThrownBy(() -> registry.registerWorkspace("w1", link))
        .isInstanceOf(WorkspacePathException.class).hasMessageContaining("symbolic link");
    assertThat(partitionRevision()).isZero();
  }

  @Test
  void aWorkspaceOutsideItsRootsIsRefused() throws IOException {
    Path root = Files.createDirectories(workspaces.resolve("root"));
    Path inside = Files.createDirectories(root.resolve("a"));
    RunRegistry rooted = registry(store, RegistryOptions.defaults()
        .withWorkspaceRoots(List.of(root)));
    assertThatThrownBy(() -> rooted.registerWorkspace("w1", ws))
        .isInstanceOf(WorkspacePathException.class).hasMessageContaining("outside");
    assertThatThrownBy(() -> rooted.registerWorkspace("w1", root.resolve("a/../..")
        .resolve("ws-1"))).isInstanceOf(WorkspacePathException.class);
    assertThat(partitionRevision()).isZero();
    assertThat(rooted.registerWorkspace("w1", inside).canonicalPath())
        .isEqualTo(inside.toRealPath().toString());
  }

  @Test
  void aWorkspaceReachedThroughALinkUnderItsRootIsRefused() throws IOException {
    Path root = Files.createDirectories(workspaces.resolve("root"));
    Path link = root.resolve("hop");
    try {
      Files.createSymbolicLink(link, workspaces);
    } catch (UnsupportedOperationException | IOException e) {
      return;
    }
    RunRegistry rooted = registry(store, RegistryOptions.defaults()
        .withWorkspaceRoots(List.of(root)));
    assertThatThrownBy(() -> rooted.registerWorkspace("w1", link.resolve("ws-1")))
        .isInstanceOf(WorkspacePathException.class).hasMessageContaining("symbolic link");
    assertThat(partitionRevision()).isZero();
  }

  @Test
  void aMissingOrRegularFileWorkspaceIsRefused() throws IOException {
    assertThatThrownBy(() -> registry.registerWorkspace("w1", workspaces.resolve("nope")))
        .isInstanceOf(WorkspacePathException.class).hasMessageContaining("does not exist");
    Path file = Files.writeString(workspaces.resolve("file"), "x");
    assertThatThrownBy(() -> registry.registerWorkspace("w1", file))
        .isInstanceOf(WorkspacePathException.class).hasMessageContaining("not a directory");
    assertThat(partitionRevision()).isZero();
  }

  // ---- allocation -----------------------------------------------------------------------

  @Test
  void allocateRunStartsInStartingAtRevisionOneWithARunAllocatedEvent() throws IOException {
    workspace();
    RunRecord run = registry.allocateRun(NewRun.builder("w1", "r-1").binding("b")
        .pipeline("p").workflow("wf").planChecksum("sha").commandArgv(List.of("sleep", "1"))
        .request(JsonNodeFactory.instance.objectNode().put("k", "v")).build());
    assertThat(run.status()).isEqualTo(RunStatus.STARTING);
    assertThat(run.revision()).isEqualTo(1);
    assertThat(run.createdAt()).isEqualTo(START).isEqualTo(run.updatedAt());
    assertThat(run.workspaceDir()).isEqualTo(ws.toRealPath().toString());
    assertThat(run.commandArgv()).containsExactly("sleep", "1");
    assertThat(run.request().get("k").asText()).isEqualTo("v");
    assertThat(run.runDirectory()).isEqualTo(ws.toRealPath().resolve("runs/r-1"));
    assertThat(run.startedAt()).isNull();
    assertThat(registry.run(run.id())).contains(run);
    List<RunEvent> events = registry.runEvents(run.id());
    assertThat(events).hasSize(1);
    assertThat(events.get(0).type()).isEqualTo(RunEvent.RUN_ALLOCATED);
    assertThat(events.get(0).sequence()).isEqualTo(1);
    assertThat(events.get(0).from()).isNull();
    assertThat(events.get(0).to()).isEqualTo(RunStatus.STARTING);
  }

  @Test
  void aDuplicateExternalRunIdIsAConflictAndWritesNothing() {
    workspace();
    RunRecord first = allocate("r-1");
    long before = partitionRevision();
    assertThatThrownBy(() -> allocate("r-1"))
        .isInstanceOfSatisfying(DuplicateRunException.class, e -> {
          assertThat(e.externalRunId()).isEqualTo("r-1");
          assertThat(e.existingRunId()).isEqualTo(first.id());
        });
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void theFirstRunIdDefaultsToTheRunsOwnExternalId() {
    workspace();
    RunRecord run = allocate("r-1");
    assertThat(run.firstRunId()).isEqualTo("r-1");
    assertThat(run.attemptNumber()).isEqualTo(1);
  }

  @Test
  void anAttemptKeepsTheLineageAndAttemptNumberItWasGiven() {
    workspace();
    allocate("r-1");
    RunRecord retry = registry.allocateRun(NewRun.builder("w1", "r-1-2")
        .attemptOf("r-1", 2).build());
    assertThat(retry.firstRunId()).isEqualTo("r-1");
    assertThat(retry.attemptNumber()).isEqualTo(2);
  }

  @Test
  void allocatingInAnUnregisteredWorkspaceIsRefused() {
    assertThatThrownBy(() -> allocate("r-1")).isInstanceOf(UnknownWorkspaceException.class)
        .hasMessageContaining("w1");
    assertThat(partitionRevision()).isZero();
  }

  @Test
  void runPathsThatLeaveTheWorkspaceAreRefusedAndNothingIsWritten() {
    workspace();
    long before = partitionRevision();
    for (String bad : List.of("../elsewhere", "runs/../../x", ws.toAbsolutePath().toString(),
        "", ".")) {
      assertThatThrownBy(() -> registry.allocateRun(NewRun.builder("w1", "r-1")
          .runRelativePath(bad).build())).as(bad).isInstanceOf(WorkspacePathException.class);
    }
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void aRunPathThroughASymbolicLinkIsRefused() throws IOException {
    workspace();
    Path outside = Files.createDirectories(workspaces.resolve("outside"));
    try {
      Files.createSymbolicLink(ws.resolve("runs"), outside);
    } catch (UnsupportedOperationException | IOException e) {
      return;
    }
    long before = partitionRevision();
    assertThatThrownBy(() -> allocate("r-1")).isInstanceOf(WorkspacePathException.class)
        .hasMessageContaining("symbolic link");
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void anOversizedRequestIsRefusedAndNothingIsWritten() {
    workspace();
    long before = partitionRevision();
    ObjectNode big = JsonNodeFactory.instance.objectNode()
        .put("blob", "x".repeat(RunRegistry.MAX_REQUEST_BYTES));
    assertThatThrownBy(() -> registry.allocateRun(NewRun.builder("w1", "r-1").request(big)
        .build())).isInstanceOfSatisfying(RunDataTooLargeException.class,
            e -> assertThat(e.limit()).isEqualTo(RunRegistry.MAX_REQUEST_BYTES));
    assertThat(partitionRevision()).isEqualTo(before);
  }

  // ---- lookups --------------------------------------------------------------------------

  @Test
  void aRunIsFoundByRegistryIdAndByExternalId() {
    workspace();
    RunRecord run = allocate("r-1");
    assertThat(registry.run(run.id())).contains(run);
    assertThat(registry.runByExternalId("r-1")).contains(run);
    assertThat(registry.run("nope")).isEmpty();
    assertThat(registry.runByExternalId("nope")).isEmpty();
  }

  @Test
  void aRunIsFoundByItsDirectoryRelativeToItsWorkspace() {
    workspace();
    RunRecord run = registry.allocateRun(NewRun.builder("w1", "r-1")
        .runRelativePath("jobs/./a").build());
    assertThat(run.runRelativePath()).isEqualTo("jobs/a");
    assertThat(registry.runByDirectory("w1", "jobs/a")).contains(run);
    assertThat(registry.runByDirectory("w1", "jobs/./a")).contains(run);
    assertThat(registry.runByDirectory("w2", "jobs/a")).isEmpty();
    assertThat(registry.runByDirectory("w1", "jobs/b")).isEmpty();
  }

  @Test
  void theFirstRunOfALineageIsAttemptOneWithMatchingIds() {
    workspace();
    RunRecord first = allocate("r-1");
    registry.allocateRun(NewRun.builder("w1", "r-1-2").attemptOf("r-1", 2).build());
    assertThat(registry.firstRun("r-1")).contains(first);
    assertThat(registry.firstRun("r-1-2")).isEmpty();
  }

  @Test
  void theLatestAttemptIsTheHighestAttemptNumber() {
    workspace();
    allocate("r-1");
    RunRecord third = registry.allocateRun(NewRun.builder("w1", "r-1-3")
        .attemptOf("r-1", 3).build());
    tick();
    registry.allocateRun(NewRun.builder("w1", "r-1-2").attemptOf("r-1", 2).build());
    assertThat(registry.latestAttempt("r-1")).contains(third);
    assertThat(registry.latestAttempt("none")).isEmpty();
  }

  // ---- listing --------------------------------------------------------------------------

  @Test
  void listRunsIsNewestUpdateFirstWithTiesByRegistryIdDescending() {
    workspace();
    RunRecord a = allocate("r-a");
    RunRecord b = allocate("r-b");
    RunRecord c = allocate("r-c");
    tick();
    RunRecord moved = registry.transitionRun(a.id(), RunStatus.RUNNING, 1,
        TransitionDetails.none());
    List<RunRecord> tied = new ArrayList<>(List.of(b, c));
    tied.sort(Comparator.comparing(RunRecord::id).reversed());
    assertThat(registry.listRuns(RunFilters.any(), 50))
        .containsExactly(moved, tied.get(0), tied.get(1));
  }

  @Test
  void listRunsFiltersByWorkspaceStatusesBindingPipelineAndFirstRunId() throws IOException {
    workspace();
    registry.registerWorkspace("w2", Files.createDirectories(workspaces.resolve("ws-2")));
    RunRecord r1 = registry.allocateRun(NewRun.builder("w1", "r-1").binding("b1")
        .pipeline("p1").build());
    tick();
    RunRecord r2 = registry.allocateRun(NewRun.builder("w2", "r-2").binding("b2")
        .pipeline("p1").build());
    tick();
    RunRecord r3 = registry.allocateRun(NewRun.builder("w1", "r-1-2").binding("b1")
        .pipeline("p2").attemptOf("r-1", 2).build());
    tick();
    r1 = registry.transitionRun(r1.id(), RunStatus.RUNNING, 1, TransitionDetails.none());
    assertThat(registry.listRuns(RunFilters.any().withWorkspace("w1"), 50))
        .containsExactly(r1, r3);
    assertThat(registry.listRuns(RunFilters.any().withStatuses(Set.of(RunStatus.STARTING)),
        50)).containsExactly(r3, r2);
    assertThat(registry.listRuns(RunFilters.any().withStatuses(Set.of(RunStatus.STARTING,
        RunStatus.RUNNING)), 50)).containsExactly(r1, r3, r2);
    assertThat(registry.listRuns(RunFilters.any().withBinding("b2"), 50)).containsExactly(r2);
    assertThat(registry.listRuns(RunFilters.any().withPipeline("p1"), 50))
        .containsExactly(r1, r2);
    assertThat(registry.listRuns(RunFilters.any().withFirstRunId("r-1"), 50))
        .containsExactly(r1, r3);
    assertThat(registry.listRuns(RunFilters.any().withFirstRunId("r-1")
        .withStatuses(Set.of(RunStatus.RUNNING)).withPipeline("p1"), 50)).containsExactly(r1);
    assertThat(registry.listRuns(RunFilters.any().withStatuses(Set.of(RunStatus.FAILED)), 50))
        .isEmpty();
  }

  @Test
  void listRunsClampsTheLimitToOneAndTwoHundred() {
    workspace();
    for (int i = 0; i < 205; i++) {
      allocate("r-" + i);
    }
    assertThat(registry.listRuns(RunFilters.any(), 0)).hasSize(1);
    assertThat(registry.listRuns(RunFilters.any(), -5)).hasSize(1);
    assertThat(registry.listRuns(RunFilters.any(), 7)).hasSize(7);
    assertThat(registry.listRuns(RunFilters.any(), 1000)).hasSize(RunRegistry.MAX_LIST_LIMIT);
  }

  @Test
  void listingsSeeAnotherRegistryObjectsWrites() {
    workspace();
    RunRecord run = allocate("r-1");
    assertThat(registry.listRuns(RunFilters.any(), 10)).containsExactly(run);
    RunRegistry other = second();
    tick();
    RunRecord moved = other.transitionRun(run.id(), RunStatus.RUNNING, 1,
        TransitionDetails.none());
    tick();
    RunRecord newer = other.allocateRun(NewRun.builder("w1", "r-2").build());
    assertThat(registry.listRuns(RunFilters.any(), 10)).containsExactly(newer, moved);
    assertThat(registry.listRuns(RunFilters.any().withStatuses(Set.of(RunStatus.RUNNING)), 10))
        .containsExactly(moved);
    assertThat(registry.listRecentLineages(10, 10)).extracting(Lineage::firstRunId)
        .containsExactly("r-2", "r-1");
  }

  @Test
  void recentLineagesAreNewestFirstWithAttemptsAscending() {
    workspace();
    RunRecord a1 = allocate("a");
    tick();
    RunRecord b1 = allocate("b");
    tick();
    RunRecord a2 = registry.allocateRun(NewRun.builder("w1", "a-2").attemptOf("a", 2).build());
    List<Lineage> lineages = registry.listRecentLineages(20, 6);
    assertThat(lineages).extracting(Lineage::firstRunId).containsExactly("a", "b");
    assertThat(lineages.get(0).attempts()).containsExactly(a1, a2);
    assertThat(lineages.get(0).lastUpdatedAt()).isEqualTo(a2.updatedAt());
    assertThat(lineages.get(1).attempts()).containsExactly(b1);
    tick();
    registry.transitionRun(b1.id(), RunStatus.FAILED, 1, TransitionDetails.none());
    assertThat(registry.listRecentLineages(20, 6)).extracting(Lineage::firstRunId)
        .containsExactly("b", "a");
  }

  @Test
  void recentLineagesKeepTheNewestAttemptsAndClampTheirBounds() {
    workspace();
    allocate("a");
    for (int attempt = 2; attempt <= 25; attempt++) {
      registry.allocateRun(NewRun.builder("w1", "a-" + attempt).attemptOf("a", attempt)
          .build());
    }
    for (int i = 0; i < 55; i++) {
      allocate("other-" + i);
    }
    tick();
    RunRecord latest = registry.runByExternalId("a-25").orElseThrow();
    registry.transitionRun(latest.id(), RunStatus.RUNNING, 1, TransitionDetails.none());
    List<Lineage> top = registry.listRecentLineages(1, 3);
    assertThat(top).hasSize(1);
    assertThat(top.get(0).attempts()).extracting(RunRecord::attemptNumber)
        .containsExactly(23, 24, 25);
    assertThat(registry.listRecentLineages(0, 0)).hasSize(1)
        .allSatisfy(l -> assertThat(l.attempts()).hasSize(1));
    List<Lineage> clamped = registry.listRecentLineages(1000, 1000);
    assertThat(clamped).hasSize(RunRegistry.MAX_LINEAGES);
    assertThat(clamped.get(0).attempts()).hasSize(RunRegistry.MAX_ATTEMPTS_PER_LINEAGE)
        .extracting(RunRecord::attemptNumber).startsWith(6).endsWith(25).isSorted();
  }

  // ---- active runs ----------------------------------------------------------------------

  @Test
  void hasActiveRunsAsksByOwnerImplementationAndIgnoresTerminalRuns() {
    workspace();
    assertThat(registry.hasActiveRuns("daemon-a")).isFalse();
    RunRecord run = registry.allocateRun(NewRun.builder("w1", "r-1")
        .owner(RunOwner.local("daemon-a", "i-1")).build());
    registry.allocateRun(NewRun.builder("w1", "r-2").build());
    assertThat(registry.hasActiveRuns("daemon-a")).isTrue();
    assertThat(registry.hasActiveRuns("daemon-b")).isFalse();
    registry.transitionRun(run.id(), RunStatus.FAILED, 1, TransitionDetails.none());
    assertThat(registry.hasActiveRuns("daemon-a")).isFalse();
  }

  @Test
  void daemonOwnedActiveRunsNeedAnInstanceIdAndTheLocalTarget() {
    workspace();
    RunRecord owned = registry.allocateRun(NewRun.builder("w1", "r-1").pipeline("p1")
        .owner(RunOwner.local("d", "i-1")).build());
    registry.allocateRun(NewRun.builder("w1", "r-2").owner(RunOwner.local("d", "")).build());
    registry.allocateRun(NewRun.builder("w1", "r-3").owner(new RunOwner("d", "i-1", "remote"))
        .build());
    registry.allocateRun(NewRun.builder("w1", "r-4").build());
    RunRecord done = registry.allocateRun(NewRun.builder("w1", "r-5")
        .owner(RunOwner.local("d", "i-1")).build());
    registry.transitionRun(done.id(), RunStatus.ORPHANED, 1, TransitionDetails.none());
    tick();
    RunRecord cancelling = registry.transitionRun(owned.id(), RunStatus.CANCEL_REQUESTED, 1,
        TransitionDetails.none());
    assertThat(registry.listDaemonOwnedActiveRuns(RunFilters.any())).containsExactly(cancelling);
    assertThat(registry.listDaemonOwnedActiveRuns(RunFilters.any().withPipeline("p2")))
        .isEmpty();
    assertThat(registry.listDaemonOwnedActiveRuns(RunFilters.any()
        .withStatuses(Set.of(RunStatus.COMPLETED)))).containsExactly(cancelling);
  }

  // ---- pid ------------------------------------------------------------------------------

  @Test
  void setRunPidChangesNeitherRevisionNorUpdateTimeAndRecordsNoEvent() {
    workspace();
    RunRecord run = allocate("r-1");
    tick();
    RunRecord withPid = registry.setRunPid(run.id(), 4242L);
    assertThat(withPid.pid()).isEqualTo(4242L);
    assertThat(withPid.revision()).isEqualTo(1);
    assertThat(withPid.updatedAt()).isEqualTo(run.updatedAt());
    assertThat(registry.runEvents(run.id())).hasSize(1);
    assertThat(registry.setRunPid(run.id(), null).pid()).isNull();
  }

  @Test
  void setRunPidOnATerminalRunIsRefusedAndWritesNothing() {
    workspace();
    RunRecord run = allocate("r-1");
    registry.transitionRun(run.id(), RunStatus.FAILED, 1, TransitionDetails.none());
    long before = partitionRevision();
    assertThatThrownBy(() -> registry.setRunPid(run.id(), 1L))
        .isInstanceOfSatisfying(RunNotActiveException.class,
            e -> assertThat(e.status()).isEqualTo(RunStatus.FAILED));
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void setRunPidOnAnUnknownRunIsATypedNotFound() {
    assertThatThrownBy(() -> registry.setRunPid("nope", 1L))
        .isInstanceOfSatisfying(RunNotFoundException.class,
            e -> assertThat(e.runId()).isEqualTo("nope"));
  }

  // ---- transitions ----------------------------------------------------------------------

  @Test
  void aTransitionMovesTheRevisionAndItsEventSequenceEqualsTheNewRevision() {
    workspace();
    RunRecord run = allocate("r-1");
    tick();
    ObjectNode extra = JsonNodeFactory.instance.objectNode().put("reason", "launched");
    RunRecord running = registry.transitionRun(run.id(), RunStatus.RUNNING, 1,
        TransitionDetails.none().withPid(99).withExtra(extra));
    assertThat(running.status()).isEqualTo(RunStatus.RUNNING);
    assertThat(running.revision()).isEqualTo(2);
    assertThat(running.updatedAt()).isEqualTo(START.plusSeconds(1));
    assertThat(running.pid()).isEqualTo(99L);
    tick();
    RunRecord done = registry.transitionRun(run.id(), RunStatus.COMPLETED, 2,
        TransitionDetails.none().withReturnCode(0));
    assertThat(done.revision()).isEqualTo(3);
    assertThat(done.returnCode()).isZero();
    assertThat(registry.run(run.id())).contains(done);
    List<RunEvent> events = registry.runEvents(run.id());
    assertThat(events).extracting(RunEvent::sequence).containsExactly(1L, 2L, 3L);
    assertThat(events.get(1).type()).isEqualTo(StatusChanged.TYPE);
    assertThat(events.get(1).from()).isEqualTo(RunStatus.STARTING);
    assertThat(events.get(1).to()).isEqualTo(RunStatus.RUNNING);
    assertThat(events.get(1).details().get("reason").asText()).isEqualTo("launched");
    assertThat(events.get(2).details().get("returnCode").asInt()).isZero();
    assertThat(events.get(2).createdAt()).isEqualTo(START.plusSeconds(2));
  }

  @Test
  void aTransitionToTheCurrentStatusIsANoOpThatWritesNothing() {
    workspace();
    RunRecord run = allocate("r-1");
    long before = partitionRevision();
    tick();
    RunRecord same = registry.transitionRun(run.id(), RunStatus.STARTING, 1,
        TransitionDetails.none().withReturnCode(3));
    assertThat(same).isEqualTo(run);
    assertThat(registry.transitionRun(run.id(), RunStatus.STARTING, 7,
        TransitionDetails.none())).isEqualTo(run);
    assertThat(partitionRevision()).isEqualTo(before);
    assertThat(registry.runEvents(run.id())).hasSize(1);
  }

  @Test
  void aDisallowedTransitionNamesFromToAndTheAllowedSetAndWritesNothing() {
    workspace();
    RunRecord run = allocate("r-1");
    long before = partitionRevision();
    assertThatThrownBy(() -> registry.transitionRun(run.id(), RunStatus.COMPLETED, 1,
        TransitionDetails.none())).isInstanceOfSatisfying(InvalidTransitionException.class,
            e -> {
              assertThat(e.from()).isEqualTo("starting");
              assertThat(e.to()).isEqualTo("completed");
              assertThat(e.allowed()).containsExactly("running", "cancel_requested", "failed",
                  "orphaned");
            });
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void aTransitionOutOfATerminalStatusIsRefusedAndWritesNothing() {
    workspace();
    RunRecord run = allocate("r-1");
    registry.transitionRun(run.id(), RunStatus.CANCEL_REQUESTED, 1, TransitionDetails.none());
    registry.transitionRun(run.id(), RunStatus.CANCELED, 2, TransitionDetails.none());
    long before = partitionRevision();
    for (RunStatus to : List.of(RunStatus.RUNNING, RunStatus.FAILED, RunStatus.STARTING)) {
      assertThatThrownBy(() -> registry.transitionRun(run.id(), to, 3,
          TransitionDetails.none())).isInstanceOfSatisfying(InvalidTransitionException.class,
              e -> assertThat(e.allowed()).isEmpty());
    }
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void aStaleRevisionIsAConflictCarryingExpectedAndActual() {
    workspace();
    RunRecord run = allocate("r-1");
    registry.transitionRun(run.id(), RunStatus.RUNNING, 1, TransitionDetails.none());
    long before = partitionRevision();
    assertThatThrownBy(() -> registry.transitionRun(run.id(), RunStatus.FAILED, 1,
        TransitionDetails.none())).isInstanceOfSatisfying(StaleRunRevisionException.class,
            e -> {
              assertThat(e.runId()).isEqualTo(run.id());
              assertThat(e.expected()).isEqualTo(1);
              assertThat(e.actual()).isEqualTo(2);
            });
    assertThat(partitionRevision()).isEqualTo(before);
  }

  @Test
  void startedAtIsStampedOnEnteringRunningAndCompletedAtOnATerminalStatus() {
    workspace();
    RunRecord run = allocate("r-1");
    tick();
    RunRecord running = registry.transitionRun(run.id(), RunStatus.RUNNING, 1,
        TransitionDetails.none());
    assertThat(running.startedAt()).isEqualTo(START.plusSeconds(1));
    assertThat(running.completedAt()).isNull();
    tick();
    RunRecord failed = registry.transitionRun(run.id(), RunStatus.FAILED, 2,
        TransitionDetails.none());
    assertThat(failed.startedAt()).isEqualTo(START.plusSeconds(1));
    assertThat(failed.completedAt()).isEqualTo(START.plusSeconds(2));
    for (RunStatus terminal : List.of(RunStatus.COMPLETED, RunStatus.CANCELED,
        RunStatus.ORPHANED)) {
      RunRecord other = allocate("r-" + terminal.wireName());
      RunStatus via = terminal == RunStatus.CANCELED ? RunStatus.CANCEL_REQUESTED
          : RunStatus.RUNNING;
      registry.transitionRun(other.id(), via, 1, TransitionDetails.none());
      tick();
      assertThat(registry.transitionRun(other.id(), terminal, 2, TransitionDetails.none())
          .completedAt()).as(terminal.wireName()).isEqualTo(clock.instant());
    }
  }

  @Test
  void cancelRequestedAtIsStampedOnEnteringCancelRequested() {
    workspace();
    RunRecord run = allocate("r-1");
    registry.transitionRun(run.id(), RunStatus.RUNNING, 1, TransitionDetails.none());
    tick();
    RunRecord asked = registry.transitionRun(run.id(), RunStatus.CANCEL_REQUESTED, 2,
        TransitionDetails.none());
    assertThat(asked.cancelRequestedAt()).isEqualTo(START.plusSeconds(1));
    assertThat(asked.completedAt()).isNull();
    tick();
    RunRecord canceling = registry.transitionRun(run.id(), RunStatus.CANCELING, 3,
        TransitionDetails.none());
    assertThat(canceling.cancelRequestedAt()).isEqualTo(START.plusSeconds(1));
  }

  @Test
  void theFailureSummaryIsTruncatedToOneThousandCharacters() {
    workspace();
    RunRecord run = allocate("r-1");
    String summary = "e".repeat(RunRegistry.FAILURE_SUMMARY_LIMIT + 500);
    RunRecord failed = registry.transitionRun(run.id(), RunStatus.FAILED, 1,
        TransitionDetails.none().withFailureSummary(summary).withReturnCode(2));
    assertThat(failed.failureSummary()).hasSize(RunRegistry.FAILURE_SUMMARY_LIMIT)
        .isEqualTo(summary.substring(0, RunRegistry.FAILURE_SUMMARY_LIMIT));
    assertThat(failed.returnCode()).isEqualTo(2);
  }

  @Test
  void anUnknownRunIdIsATypedNotFound() {
    assertThatThrownBy(() -> registry.transitionRun("nope", RunStatus.RUNNING, 1,
        TransitionDetails.none())).isInstanceOfSatisfying(RunNotFoundException.class,
            e -> assertThat(e.runId()).isEqualTo("nope"));
    assertThat(partitionRevision()).isZero();
  }

  @Test
  void oversizedDetailsAreRefusedAndWriteNothing() {
    workspace();
    RunRecord run = allocate("r-1");
    long before = partitionRevision();
    JsonNode big = JsonNodeFactory.instance.objectNode()
        .put("log", "x".repeat(RunRegistry.MAX_DETAILS_BYTES));
    assertThatThrownBy(() -> registry.transitionRun(run.id(), RunStatus.RUNNING, 1,
        TransitionDetails.none().withExtra(big)))
        .isInstanceOf(RunDataTooLargeException.class);
    assertThat(partitionRevision()).isEqualTo(before);
    assertThat(registry.run(run.id()).orElseThrow().status()).isEqualTo(RunStatus.STARTING);
  }

  @Test
  void anUnknownStatusNameIsATypedError() {
    assertThatThrownBy(() -> RunStatus.of("paused"))
        .isInstanceOfSatisfying(UnknownStateException.class, e -> {
          assertThat(e.state()).isEqualTo("paused");
          assertThat(e.known()).contains("starting", "orphaned");
        });
    assertThat(RunStatus.of("cancel_requested")).isEqualTo(RunStatus.CANCEL_REQUESTED);
  }

  @Test
  void racingTransitionsOfOneRevisionHaveExactlyOneWinner() throws Exception {
    workspace();
    RunRegistry other = second();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int i = 0; i < 6; i++) {
        RunRecord run = allocate("r-" + i);
        // Two callers read revision 1 and want different states: one wins; the other is
        // refused as stale, or as a transition the winner's state does not allow.
        RunStatus won = race(pool, run, 1, registry, RunStatus.RUNNING, other,
            RunStatus.CANCEL_REQUESTED);
        RunStatus[] next = won == RunStatus.RUNNING
            ? new RunStatus[] {RunStatus.COMPLETED, RunStatus.FAILED}
            : new RunStatus[] {RunStatus.CANCELING, RunStatus.CANCELED};
        RunStatus second = race(pool, run, 2, other, next[0], registry, next[1]);
        RunRecord now = registry.run(run.id()).orElseThrow();
        assertThat(now.status()).isEqualTo(second);
        assertThat(now.revision()).isEqualTo(3);
        assertThat(registry.runEvents(run.id())).extracting(RunEvent::sequence)
            .containsExactly(1L, 2L, 3L);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /** Races two transitions from one revision; returns the status of the only winner. */
  private RunStatus race(ExecutorService pool, RunRecord run, long revision, RunRegistry a,
      RunStatus toA, RunRegistry b, RunStatus toB) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    List<Future<RunStatus>> results = new ArrayList<>();
    for (int k = 0; k < 2; k++) {
      RunRegistry racer = k == 0 ? a : b;
      RunStatus to = k == 0 ? toA : toB;
      Callable<RunStatus> attempt = () -> {
        go.await();
        try {
          racer.transitionRun(run.id(), to, revision, TransitionDetails.none());
          return to;
        } catch (StaleRunRevisionException | InvalidTransitionException e) {
          return null;
        }
      };
      results.add(pool.submit(attempt));
    }
    go.countDown();
    List<RunStatus> winners = new ArrayList<>();
    for (Future<RunStatus> result : results) {
      RunStatus won = result.get(60, TimeUnit.SECONDS);
      if (won != null) {
        winners.add(won);
      }
    }
    assertThat(winners).as("winners of revision %s", revision).hasSize(1);
    return winners.get(0);
  }
}
