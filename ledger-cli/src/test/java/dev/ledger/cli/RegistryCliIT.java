package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.registry.NewRun;
import dev.ledger.registry.RegistryOptions;
import dev.ledger.registry.RunRecord;
import dev.ledger.registry.RunStatus;
import dev.ledger.registry.TransitionDetails;
import dev.ledger.registry.collections.CollectionRunRegistry;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import dev.ledger.testing.base.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger runs} and {@code ledger lineages} as child processes on a run registry this
 * class writes with ledger-registry: stdout, stderr, exit codes, and a store left unchanged.
 */
class RegistryCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T0 = Instant.parse("2026-11-30T10:00:00Z");

  @TempDir
  static Path base;
  static Path store;
  static Path workspace;
  /** Registry ids by external run id. */
  static final java.util.Map<String, String> IDS = new java.util.HashMap<>();

  /**
   * Three lineages, the store's clock a second further at each step: build-1 failed and was
   * retried (build-1b runs), nightly completed, lint (no pipeline) is starting. Another
   * partition holds a second registry with one run.
   */
  @BeforeAll
  static void prepareRegistry() throws Exception {
    store = base.resolve("store");
    workspace = Files.createDirectories(base.resolve("ws"));
    MutableClock clock = new MutableClock(T0);
    try (FileLedgerStore ledgers = FileLedgerStore.open(store,
        LedgerOptions.defaults().withClock(clock))) {
      CollectionRunRegistry registry = CollectionRunRegistry.on(ledgers);
      registry.registerWorkspace("ws-1", workspace);
      RunRecord build1 = allocate(registry, clock, NewRun.builder("ws-1", "build-1")
          .pipeline("ci").build());
      RunRecord nightly = allocate(registry, clock, NewRun.builder("ws-1", "nightly")
          .pipeline("nightly").build());
      build1 = step(registry, clock, build1, RunStatus.RUNNING, TransitionDetails.none());
      nightly = step(registry, clock, nightly, RunStatus.RUNNING, TransitionDetails.none());
      step(registry, clock, build1, RunStatus.FAILED, TransitionDetails.none()
          .withReturnCode(2).withFailureSummary("tests failed"));
      step(registry, clock, nightly, RunStatus.COMPLETED, TransitionDetails.none()
          .withReturnCode(0));
      RunRecord retry = allocate(registry, clock, NewRun.builder("ws-1", "build-1b")
          .pipeline("ci").attemptOf("build-1", 2).build());
      step(registry, clock, retry, RunStatus.RUNNING, TransitionDetails.none().withPid(4242));
      allocate(registry, clock, NewRun.builder("ws-1", "lint").build());
    }
    // An application's own registry under another partition.
    try (FileLedgerStore ledgers = FileLedgerStore.open(store,
        LedgerOptions.defaults().withClock(clock))) {
      CollectionRunRegistry other = CollectionRunRegistry.on(ledgers,
          RegistryOptions.defaults().withPartition("team-registry"));
      other.registerWorkspace("ws-1", workspace);
      clock.advance(Duration.ofSeconds(1));
      other.allocateRun(NewRun.builder("ws-1", "elsewhere").build());
    }
  }

  private static RunRecord allocate(CollectionRunRegistry registry, MutableClock clock,
      NewRun run) {
    clock.advance(Duration.ofSeconds(1));
    RunRecord record = registry.allocateRun(run);
    IDS.put(record.externalRunId(), record.id());
    return record;
  }

  private static RunRecord step(CollectionRunRegistry registry, MutableClock clock,
      RunRecord run, RunStatus to, TransitionDetails details) {
    clock.advance(Duration.ofSeconds(1));
    return registry.transitionRun(run.id(), to, run.revision(), details);
  }

  private static List<String> externalIds(Cli.Result json) throws Exception {
    List<String> ids = new ArrayList<>();
    for (String line : json.outLines()) {
      ids.add(JSON.readTree(line).get("externalRunId").asText());
    }
    return ids;
  }

  @Test
  void runsNewestFirstAsATableOrJsonLines() throws Exception {
    Cli.Result table = Cli.run("runs", store.toString());
    assertThat(table.exit()).as(table.toString()).isZero();
    assertThat(table.err()).isEmpty();
    assertThat(table.outLines()).hasSize(5);
    assertThat(table.outLines().get(0)).startsWith("UPDATED").contains("STATUS",
        "EXTERNAL RUN ID", "REGISTRY ID");
    assertThat(table.outLines().get(1)).matches("2026-11-30T10:00:09Z +1 +starting +1 +lint "
        + "+ws-1 +- +" + IDS.get("lint"));
    assertThat(table.outLines().get(2)).matches("2026-11-30T10:00:08Z +2 +running +2 "
        + "+build-1b +ws-1 +ci +" + IDS.get("build-1b"));

    Cli.Result json = Cli.run("runs", store.toString(), "--json");
    assertThat(json.exit()).as(json.toString()).isZero();
    assertThat(externalIds(json)).containsExactly("lint", "build-1b", "nightly", "build-1");
    JsonNode failed = JSON.readTree(json.outLines().get(3));
    assertThat(failed.get("status").asText()).isEqualTo("failed");
    assertThat(failed.get("returnCode").asInt()).isEqualTo(2);
    assertThat(failed.get("failureSummary").asText()).isEqualTo("tests failed");
    assertThat(failed.get("revision").asLong()).isEqualTo(3);
    assertThat(failed.get("startedAt").asText()).isEqualTo("2026-11-30T10:00:03Z");
    assertThat(failed.get("completedAt").asText()).isEqualTo("2026-11-30T10:00:05Z");
    assertThat(failed.get("id").asText()).isEqualTo(IDS.get("build-1"));
    assertThat(failed.get("workspaceDir").asText())
        .isEqualTo(workspace.toRealPath().toString());
    assertThat(failed.get("pid").isNull()).isTrue();
    assertThat(JSON.readTree(json.outLines().get(1)).get("pid").asLong()).isEqualTo(4242);
  }

  @Test
  void runsFilteredByStatusLineageAndPipeline() throws Exception {
    Cli.Result active = Cli.run("runs", store.toString(), "--status", "running",
        "--status", "starting", "--json");
    assertThat(active.exit()).as(active.toString()).isZero();
    assertThat(externalIds(active)).containsExactly("lint", "build-1b");
    assertThat(externalIds(Cli.run("runs", store.toString(), "--lineage", "build-1",
        "--json"))).containsExactly("build-1b", "build-1");
    assertThat(externalIds(Cli.run("runs", store.toString(), "--pipeline", "ci",
        "--status", "failed", "--json"))).containsExactly("build-1");
    assertThat(externalIds(Cli.run("runs", store.toString(), "--limit", "2", "--json")))
        .containsExactly("lint", "build-1b");
    Cli.Result none = Cli.run("runs", store.toString(), "--workspace", "ws-9");
    assertThat(none.exit()).isZero();
    assertThat(none.outLines()).hasSize(1); // the header only
    assertThat(externalIds(Cli.run("runs", store.toString(), "--partition", "team-registry",
        "--json"))).containsExactly("elsewhere");
  }

  @Test
  void lineagesMostRecentlyActiveFirstWithTheirAttempts() throws Exception {
    Cli.Result text = Cli.run("lineages", store.toString());
    assertThat(text.exit()).as(text.toString()).isZero();
    assertThat(text.outLines()).hasSize(7);
    assertThat(text.outLines().get(0))
        .isEqualTo("lineage lint, last update 2026-11-30T10:00:09Z, 1 attempt shown");
    assertThat(text.outLines().get(2))
        .isEqualTo("lineage build-1, last update 2026-11-30T10:00:08Z, 2 attempts shown");
    assertThat(text.outLines().get(3))
        .matches("  2026-11-30T10:00:05Z +1 +failed +3 +build-1 +ws-1 +ci +" + IDS.get("build-1"));
    assertThat(text.outLines().get(4)).matches("  2026-11-30T10:00:08Z +2 +running +2 "
        + "+build-1b +ws-1 +ci +" + IDS.get("build-1b"));
    assertThat(text.outLines().get(5)).startsWith("lineage nightly, ");

    Cli.Result json = Cli.run("lineages", store.toString(), "--limit", "2", "--attempts", "1",
        "--json");
    assertThat(json.exit()).as(json.toString()).isZero();
    assertThat(json.outLines()).hasSize(2);
    JsonNode build = JSON.readTree(json.outLines().get(1));
    assertThat(build.get("firstRunId").asText()).isEqualTo("build-1");
    assertThat(build.get("lastUpdatedAt").asText()).isEqualTo("2026-11-30T10:00:08Z");
    assertThat(build.get("attempts")).hasSize(1);
    assertThat(build.get("attempts").get(0).get("externalRunId").asText())
        .isEqualTo("build-1b");
  }

  @Test
  void errorsAndExitCodes() throws Exception {
    Cli.Result status = Cli.run("runs", store.toString(), "--status", "done");
    assertThat(status.exit()).isEqualTo(2);
    assertThat(status.errLines()).singleElement().asString()
        .contains("'done'", "running", "cancel_requested");
    for (List<String> args : List.of(List.of("runs", "--limit", "0"),
        List.of("runs", "--limit", "201"), List.of("lineages", "--limit", "51"),
        List.of("lineages", "--attempts", "0"))) {
      List<String> all = new ArrayList<>(args);
      all.add(1, store.toString());
      Cli.Result result = Cli.run(all.toArray(String[]::new));
      assertThat(result.exit()).as(all + "\n" + result).isEqualTo(2);
      assertThat(result.errLines()).singleElement();
    }
    Cli.Result noRegistry = Cli.run("runs", store.toString(), "--partition", "nobody");
    assertThat(noRegistry.exit()).isEqualTo(1);
    assertThat(noRegistry.errLines()).singleElement().asString()
        .contains("no run registry", "'nobody'", store.toString());
    Cli.Result noStore = Cli.run("lineages", base.resolve("nowhere").toString());
    assertThat(noStore.exit()).isEqualTo(3);
    assertThat(base.resolve("nowhere")).doesNotExist();
  }

  @Test
  void readsChangeNothing() throws Exception {
    DirectorySnapshot before = DirectorySnapshot.of(store, DirectorySnapshot.Options.of(
        Aspect.CONTENT, Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES, Aspect.PERMISSIONS));
    for (List<String> args : List.of(List.of("runs", store.toString(), "--json"),
        List.of("lineages", store.toString()))) {
      Cli.Result result = Cli.run(args.toArray(String[]::new));
      assertThat(result.exit()).as(args + "\n" + result).isZero();
    }
    assertThat(before.diff(DirectorySnapshot.of(store, DirectorySnapshot.Options.of(
        Aspect.CONTENT, Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES, Aspect.PERMISSIONS))))
        .isEmpty();
  }
}
