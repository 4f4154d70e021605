package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.artifacts.ArtifactRef;
import dev.ledger.artifacts.ArtifactSnapshot;
import dev.ledger.artifacts.ArtifactStore;
import dev.ledger.artifacts.AttemptSubmission;
import dev.ledger.artifacts.ContentId;
import dev.ledger.artifacts.fs.FileArtifactStore;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every command of the built jar, run as a child process on one store this class prepares:
 * stdout, stderr and the exit code. Commands that change a store run on copies of it.
 */
class LedgerCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DirectorySnapshot.Options EVERYTHING = DirectorySnapshot.Options.of(
      Aspect.CONTENT, Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES, Aspect.PERMISSIONS);

  /** A state large enough that small changes are journaled as merge patches. */
  record Plan(String name, String notes, List<String> done) {
    Plan with(String task) {
      List<String> more = new ArrayList<>(done);
      more.add(task);
      return new Plan(name, notes, more);
    }
  }

  @TempDir
  static Path base;
  static Path store;
  static ContentId report;
  static ContentId loose;

  /** The shared store before the tests: every test only reads it (or copies it). */
  static DirectorySnapshot prepared;

  @BeforeAll
  static void prepareStore() throws IOException {
    store = base.resolve("store");
    try (LedgerStore ledgers = FileLedgerStore.open(store)) {
      Ledger<Plan> run = ledgers.ledger("run-1", Plan.class);
      Plan plan = new Plan("build", "n".repeat(2000), List.of());
      run.commit(Ledger.NO_REVISION, plan,
          EventDraft.of("plan.created", Map.of("by", "me")).withCommandId("create-run-1"));
      plan = plan.with("compile");
      run.commit(1, plan, EventDraft.of("task.done", Map.of("task", "compile")));
      plan = plan.with("test");
      run.commit(2, plan, EventDraft.of("task.done", Map.of("task", "test")),
          EventDraft.of("note", Map.of("text", "tests green")));
      ledgers.ledger("Nightly", Plan.class).commit(Ledger.NO_REVISION,
          new Plan("nightly", "", List.of()));
    }
    try (ArtifactStore artifacts = FileArtifactStore.open(store)) {
      report = artifacts.blobs().put("all tests green\n".getBytes(StandardCharsets.UTF_8));
      loose = artifacts.blobs().put("nobody refers to me\n".getBytes(StandardCharsets.UTF_8));
      artifacts.freeze("run-1", "attempt-1", AttemptSubmission.of("green",
          List.of(ArtifactRef.ofBlob("report.txt", "text/plain", report)), List.of()));
      artifacts.freeze("run-1", "attempt-2", AttemptSubmission.of("superseded", List.of(),
          List.of()));
    }
  }

  private static Cli.Result run1Events;

  /**
   * {@code ledger events STORE run-1}, run once: three tests compare against it, and the
   * shared store never changes.
   */
  private static synchronized Cli.Result eventsOfRun1() throws Exception {
    if (run1Events == null) {
      run1Events = Cli.run("events", store.toString(), "run-1");
    }
    return run1Events;
  }

  private static Path copyOfStore(String name) throws IOException {
    Path copy = base.resolve(name);
    try (Stream<Path> paths = Files.walk(store)) {
      for (Path path : (Iterable<Path>) paths::iterator) {
        Path target = copy.resolve(store.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
    return copy;
  }

  @Test
  void helpListsTheCommandsAndExitCodes() throws Exception {
    Cli.Result top = Cli.run("--help");
    assertThat(top.exit()).as(top.toString()).isZero();
    assertThat(top.out()).startsWith("Usage: ledger").contains("Exit codes:", "2   usage error",
        "  events ", "  verify ", "  blobs ");
    assertThat(top.err()).isEmpty();
    Cli.Result cat = Cli.run("blobs", "cat", "--help");
    assertThat(cat.exit()).isZero();
    assertThat(cat.out()).startsWith("Usage: ledger blobs cat");
  }

  @Test
  void lsListsEveryLedgerWithItsHead() throws Exception {
    Cli.Result table = Cli.run("ls", store.toString());
    assertThat(table.exit()).as(table.toString()).isZero();
    assertThat(table.outLines()).hasSize(3);
    assertThat(table.outLines().get(0)).startsWith("ROOT").contains("REVISION", "EVENTS");
    assertThat(table.outLines().get(1)).matches("Nightly +1 +0 +\\S+Z +\\d+");
    assertThat(table.outLines().get(2)).matches("run-1 +3 +4 +\\S+Z +\\d+");

    Cli.Result json = Cli.run("ls", store.toString(), "--json");
    assertThat(json.exit()).as(json.toString()).isZero();
    JsonNode list = JSON.readTree(json.out());
    assertThat(list).hasSize(2);
    JsonNode run = list.get(1);
    assertThat(run.get("root").asText()).isEqualTo("run-1");
    assertThat(run.get("revision").asLong()).isEqualTo(3);
    assertThat(run.get("events").asLong()).isEqualTo(4);
    try (FileLedgerStore ledgers = FileLedgerStore.openReadOnly(store)) {
      assertThat(run.get("lastCommitAt").asText())
          .isEqualTo(ledgers.head("run-1").orElseThrow().lastCommitAt().toString());
    }
    assertThat(run.get("bytes").asLong()).isEqualTo(bytesBelow(store.resolve("ledgers/run-1")));
    // Upper-case letters are written "!" + lower case in directory names.
    assertThat(list.get(0).get("bytes").asLong())
        .isEqualTo(bytesBelow(store.resolve("ledgers/!nightly")));
  }

  private static long bytesBelow(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(Files::isRegularFile).mapToLong(file -> {
        try {
          return Files.size(file);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }).sum();
    }
  }

  @Test
  void showPrintsTheLatestStateAndFoldsPastRevisions() throws Exception {
    Cli.Result latest = Cli.run("show", store.toString(), "run-1");
    assertThat(latest.exit()).as(latest.toString()).isZero();
    assertThat(latest.out()).contains("\n  \"revision\" : 3,"); // indented
    JsonNode shown = JSON.readTree(latest.out());
    assertThat(shown.get("root").asText()).isEqualTo("run-1");
    assertThat(shown.get("revision").asLong()).isEqualTo(3);
    assertThat(shown.at("/state/done").toString()).isEqualTo("[\"compile\",\"test\"]");

    for (int revision : new int[] {1, 3}) { // a whole state; then two merge patches on it
      Cli.Result past = Cli.run("show", store.toString(), "run-1", "--revision", "" + revision);
      assertThat(past.exit()).as(past.toString()).isZero();
      JsonNode node = JSON.readTree(past.out());
      assertThat(node.get("revision").asLong()).isEqualTo(revision);
      assertThat(node.at("/state/done")).hasSize(revision - 1);
      assertThat(node.at("/state/notes").asText()).hasSize(2000);
      if (revision == 3) {
        assertThat(node).isEqualTo(shown); // the fold agrees with load()
      }
    }

    // A state written with a newer state version than a plain tree declares is shown as
    // stored, folded from the journal, instead of refused.
    Path versioned = base.resolve("versioned");
    try (FileLedgerStore ledgers = FileLedgerStore.open(versioned)) {
      ledgers.ledger("v", dev.ledger.core.StateType.of(Plan.class).withUpcaster(0, t -> t))
          .commit(Ledger.NO_REVISION, new Plan("v1", "", List.of()));
    }
    Cli.Result newer = Cli.run("show", versioned.toString(), "v");
    assertThat(newer.exit()).as(newer.toString()).isZero();
    assertThat(JSON.readTree(newer.out()).at("/state/name").asText()).isEqualTo("v1");

    Cli.Result beyond = Cli.run("show", store.toString(), "run-1", "--revision", "4");
    assertThat(beyond.exit()).isEqualTo(1);
    assertThat(beyond.errLines()).containsExactly("ledger show: ledger 'run-1' in " + store
        + " has 3 revisions; there is no revision 4");
    Cli.Result missing = Cli.run("show", store.toString(), "run-9");
    assertThat(missing.exit()).isEqualTo(1);
    assertThat(missing.errLines()).hasSize(1);
    assertThat(missing.err()).contains(store.toString(), "run-9");
    Cli.Result invalid = Cli.run("show", store.toString(), "run 1");
    assertThat(invalid.exit()).isEqualTo(2);
    assertThat(invalid.errLines()).hasSize(1);
  }

  @Test
  void eventsPageThroughCursorsLimitsAndTypes() throws Exception {
    Cli.Result all = eventsOfRun1();
    assertThat(all.exit()).as(all.toString()).isZero();
    List<JsonNode> events = new ArrayList<>();
    for (String line : all.outLines()) {
      events.add(JSON.readTree(line));
    }
    assertThat(events).extracting(e -> e.get("type").asText())
        .containsExactly("plan.created", "task.done", "task.done", "note");
    assertThat(events).extracting(e -> e.get("sequence").asLong()).containsExactly(1L, 2L, 3L,
        4L);
    assertThat(events.get(0).get("commandId").asText()).startsWith("cmd_");
    assertThat(events.get(3).at("/payload/text").asText()).isEqualTo("tests green");
    assertThat(all.errLines()).singleElement().asString().startsWith("cursor: ");

    Cli.Result first = Cli.run("events", store.toString(), "run-1", "--limit", "2");
    assertThat(first.outLines()).containsExactlyElementsOf(all.outLines().subList(0, 2));
    String cursor = first.errLines().get(0).substring("cursor: ".length());
    Cli.Result rest = Cli.run("events", store.toString(), "run-1", "--after", cursor);
    assertThat(rest.exit()).as(rest.toString()).isZero();
    assertThat(rest.outLines()).containsExactlyElementsOf(all.outLines().subList(2, 4));

    Cli.Result done = Cli.run("events", store.toString(), "run-1", "--type", "task.done");
    assertThat(done.outLines()).containsExactly(all.outLines().get(1), all.outLines().get(2));

    Cli.Result badCursor = Cli.run("events", store.toString(), "run-1", "--after", "nonsense");
    assertThat(badCursor.exit()).isEqualTo(2);
    assertThat(badCursor.errLines()).singleElement().asString().contains("cursor");
  }

  @Test
  void backupCopiesLedgersAndArtifactsIntoAStoreThatVerifies() throws Exception {
    Path target = base.resolve("backup");
    Cli.Result backup = Cli.run("backup", store.toString(), target.toString());
    assertThat(backup.exit()).as(backup.toString()).isZero();
    assertThat(backup.out()).contains("ledgers to " + target, "snapshots and ");
    Cli.Result verify = Cli.run("verify", target.toString(), "--artifacts");
    assertThat(verify.exit()).as(verify.toString()).isZero();
    assertThat(Cli.run("events", target.toString(), "run-1").out())
        .isEqualTo(eventsOfRun1().out());
    Cli.Result again = Cli.run("backup", store.toString(), target.toString());
    assertThat(again.exit()).as(again.toString()).isNotZero();
    assertThat(again.errLines()).singleElement().asString().contains(target.toString());
  }

  @Test
  void exportThenImportRebuildsTheLedgerElsewhere() throws Exception {
    Path file = base.resolve("run-1.export.jsonl");
    Cli.Result export = Cli.run("export", store.toString(), "run-1", "-o", file.toString());
    assertThat(export.exit()).as(export.toString()).isZero();
    assertThat(export.err()).contains("3 revisions");
    Cli.Result toStdout = Cli.run("export", store.toString(), "run-1");
    assertThat(toStdout.out().lines().skip(1).toList()) // the header holds the export time
        .isEqualTo(Files.readString(file).lines().skip(1).toList());

    Path target = base.resolve("imported");
    Cli.Result refused = Cli.run("import", target.toString(), file.toString());
    assertThat(refused.exit()).isEqualTo(3);
    assertThat(refused.err()).contains(target.toString(), "--create");
    assertThat(target).doesNotExist();

    Cli.Result imported = Cli.run("import", target.toString(), file.toString(), "--create");
    assertThat(imported.exit()).as(imported.toString()).isZero();
    assertThat(imported.out()).isEqualTo(
        "imported ledger 'run-1': 3 revisions, 4 events, 1 commands\n");
    assertThat(Cli.run("events", target.toString(), "run-1").out())
        .isEqualTo(eventsOfRun1().out());

    Cli.Result again = Cli.run("import", target.toString(), file.toString());
    assertThat(again.exit()).isEqualTo(1);
    assertThat(again.errLines()).singleElement().asString().contains("already exists");
  }

  @Test
  void verifyIsCleanThenNamesTheFileAndOffsetOfDamage() throws Exception {
    Cli.Result clean = Cli.run("verify", store.toString(), "--artifacts");
    assertThat(clean.exit()).as(clean.toString()).isZero();
    assertThat(clean.out()).contains("ledgers: 2 verified", "0 damage",
        "artifacts: 2 blobs verified");
    assertThat(clean.errLines()).contains("verified ledger 'run-1'"); // plain progress lines
    if (Files.isExecutable(Path.of("/usr/bin/script"))) {
      // On a terminal (util-linux script gives it one) the progress is a bar redrawn in place.
      Cli.Result terminal = Cli.run(new ProcessBuilder("/usr/bin/script", "-qec",
          String.join(" ", Cli.command("verify", store.toString())), "/dev/null"));
      assertThat(terminal.exit()).as(terminal.toString()).isZero();
      assertThat(terminal.out()).contains("\r[", "] 100.0% 2/2 run-1", "ledgers: 2 verified");
    }

    Path damaged = copyOfStore("damaged");
    Path segment;
    try (Stream<Path> segments = Files.list(damaged.resolve("ledgers/run-1/journal"))) {
      segment = segments.sorted().findFirst().orElseThrow();
    }
    byte[] bytes = Files.readAllBytes(segment);
    int secondLine = indexOf(bytes, (byte) '\n') + 1;
    bytes[secondLine + 30] ^= 0x01; // a flipped bit in revision 2, before the checkpoint
    Files.write(segment, bytes);

    Cli.Result found = Cli.run("verify", damaged.toString());
    assertThat(found.exit()).as(found.toString()).isEqualTo(1);
    assertThat(found.outLines()).anySatisfy(line -> assertThat(line)
        .startsWith("damage BAD_CHECKSUM in ledger 'run-1': " + segment + " at offset "
            + secondLine + ":"));
    assertThat(found.outLines()).last().asString().contains("1 damage");
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    throw new AssertionError("no byte " + b);
  }

  @Test
  void repairRebuildsAMissingCommandEntry() throws Exception {
    Path copy = copyOfStore("repair");
    try (Stream<Path> entries = Files.walk(copy.resolve("ledgers/run-1/commands"))) {
      for (Path entry : entries.filter(Files::isRegularFile).toList()) {
        Files.delete(entry);
      }
    }
    assertThat(Cli.run("verify", copy.toString()).exit()).isEqualTo(1);

    Cli.Result repaired = Cli.run("repair", copy.toString(), "run-1");
    assertThat(repaired.exit()).as(repaired.toString()).isZero();
    assertThat(repaired.out()).isEqualTo("repaired ledger 'run-1' at revision 3: checkpoint "
        + "unchanged, 1 command entries written, 0 removed\n");
    assertThat(Cli.run("verify", copy.toString()).exit()).isZero();
    assertThat(Cli.run("repair", copy.toString(), "run-1").out())
        .isEqualTo("ledger 'run-1' at revision 3: nothing to repair\n");

    Path notAStore = Files.createDirectories(base.resolve("empty"));
    Cli.Result refused = Cli.run("repair", notAStore.toString(), "run-1");
    assertThat(refused.exit()).isEqualTo(3);
    assertThat(notAStore).isEmptyDirectory();
  }

  @Test
  void blobsCatVerifiesWhatItReads() throws Exception {
    Cli.Result cat = Cli.run("blobs", "cat", store.toString(), report.toString());
    assertThat(cat.exit()).as(cat.toString()).isZero();
    assertThat(cat.out()).isEqualTo("all tests green\n");
    assertThat(Cli.run("blobs", "cat", store.toString(), report.hex()).out())
        .isEqualTo("all tests green\n");

    Path copy = copyOfStore("bad-blob");
    Path blob;
    try (FileArtifactStore artifacts = FileArtifactStore.openReadOnly(copy)) {
      blob = artifacts.blobs().path(report);
    }
    blob.toFile().setWritable(true);
    Files.writeString(blob, "all tests red!!\n"); // same length, other bytes
    Cli.Result corrupt = Cli.run("blobs", "cat", copy.toString(), report.toString());
    assertThat(corrupt.exit()).as(corrupt.toString()).isEqualTo(1);
    assertThat(corrupt.errLines()).singleElement().asString()
        .contains(blob.toString(), "discard");
    Cli.Result verify = Cli.run("verify", copy.toString(), "--artifacts");
    assertThat(verify.exit()).isEqualTo(1);
    assertThat(verify.out()).contains("damage BLOB: " + blob);

    Cli.Result unknown = Cli.run("blobs", "cat", store.toString(), "sha256:" + "0".repeat(64));
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(Cli.run("blobs", "cat", store.toString(), "abc").exit()).isEqualTo(2);
  }

  @Test
  void orphansAndGcReportOnADryRunAndRemoveOtherwise() throws Exception {
    Path copy = copyOfStore("cleanup");
    Path known = Files.writeString(base.resolve("known.txt"), "# still running\nattempt-1\n\n");
    DirectorySnapshot before = DirectorySnapshot.of(copy.resolve("artifacts/attempts"),
        DirectorySnapshot.Options.of(Aspect.CONTENT));

    String orphan = ArtifactSnapshot.idFor("attempt-2");
    Cli.Result young = Cli.run("orphans", copy.toString(), "run-1", "--known", known.toString(),
        "--dry-run");
    assertThat(young.exit()).as(young.toString()).isZero();
    assertThat(young.outLines()).containsExactly("kept (too young) " + orphan,
        "dry run: would remove 0 orphan snapshots of root 'run-1'; kept 1 younger than PT1H");
    Cli.Result dry = Cli.run("orphans", copy.toString(), "run-1", "--known", known.toString(),
        "--min-age", "0", "--dry-run");
    assertThat(dry.outLines()).first().isEqualTo("would remove " + orphan);
    assertThat(DirectorySnapshot.of(copy.resolve("artifacts/attempts"),
        DirectorySnapshot.Options.of(Aspect.CONTENT))).isEqualTo(before);

    Cli.Result removed = Cli.run("orphans", copy.toString(), "run-1", "--known",
        known.toString(), "--min-age", "0s");
    assertThat(removed.exit()).as(removed.toString()).isZero();
    assertThat(removed.outLines()).first().isEqualTo("removed " + orphan);
    try (FileArtifactStore artifacts = FileArtifactStore.openReadOnly(copy)) {
      assertThat(artifacts.getForAttempt("run-1", "attempt-2")).isEmpty();
      assertThat(artifacts.getForAttempt("run-1", "attempt-1")).isPresent();
    }

    Cli.Result keep = Cli.run("gc", copy.toString(), "--grace", "7d", "--dry-run");
    assertThat(keep.outLines()).containsExactly("dry run: would remove 0 blobs, 0 bytes; kept "
        + "1 referenced, 1 within the grace period");
    Cli.Result gc = Cli.run("gc", copy.toString(), "--grace", "0");
    assertThat(gc.exit()).as(gc.toString()).isZero();
    assertThat(gc.outLines()).containsExactly("removed " + loose,
        "removed 1 blobs, 20 bytes; kept 1 referenced, 0 within the grace period");
    try (FileArtifactStore artifacts = FileArtifactStore.openReadOnly(copy)) {
      assertThat(artifacts.blobs().exists(loose)).isFalse();
      assertThat(artifacts.blobs().exists(report)).isTrue();
    }
    Cli.Result badGrace = Cli.run("gc", copy.toString(), "--grace", "soon");
    assertThat(badGrace.exit()).isEqualTo(2);
    assertThat(badGrace.errLines()).singleElement().asString().contains("'soon'");
    assertThat(Cli.run("gc", copy.toString()).exit()).isEqualTo(2); // --grace is required
  }

  @Test
  void readCommandsChangeNothingInAReadOnlyCopy() throws Exception {
    Path copy = copyOfStore("read-only");
    setWritable(copy, false);
    try {
      DirectorySnapshot before = DirectorySnapshot.of(copy, EVERYTHING);
      List<List<String>> reads = List.of(
          List.of("ls", copy.toString()),
          List.of("ls", copy.toString(), "--json"),
          List.of("show", copy.toString(), "run-1"),
          List.of("show", copy.toString(), "run-1", "--revision", "2"),
          List.of("events", copy.toString(), "run-1"),
          List.of("verify", copy.toString(), "--artifacts"),
          List.of("export", copy.toString(), "run-1"),
          List.of("blobs", "cat", copy.toString(), report.toString()));
      for (List<String> read : reads) {
        Cli.Result result = Cli.run(read.toArray(String[]::new));
        assertThat(result.exit()).as(read + "\n" + result).isZero();
      }
      assertThat(before.diff(DirectorySnapshot.of(copy, EVERYTHING))).isEmpty();
    } finally {
      setWritable(copy, true);
    }
  }

  private static void setWritable(Path root, boolean writable) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path path : paths.toList()) {
        Set<PosixFilePermission> permissions = EnumSet.copyOf(Files.getPosixFilePermissions(path));
        if (writable) {
          permissions.add(PosixFilePermission.OWNER_WRITE);
        } else {
          permissions.removeAll(EnumSet.of(PosixFilePermission.OWNER_WRITE,
              PosixFilePermission.GROUP_WRITE, PosixFilePermission.OTHERS_WRITE));
        }
        Files.setPosixFilePermissions(path, permissions);
      }
    }
  }

  @Test
  void readCommandsWorkWhileAnotherProcessCommits() throws Exception {
    Path live = copyOfStore("live");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread writer;
    try (FileLedgerStore ledgers = FileLedgerStore.open(live)) {
      Ledger<Plan> ledger = ledgers.ledger("busy", Plan.class);
      ledger.commit(Ledger.NO_REVISION, new Plan("busy", "", List.of()));
      writer = new Thread(() -> {
        try {
          for (int i = 0; !stop.get(); i++) {
            String task = "t" + i;
            ledger.update(plan -> dev.ledger.core.Change.to(plan.with(task),
                EventDraft.of("task.done", Map.of("task", task))));
            Thread.sleep(5); // a steady writer, not one that takes the machine's cores
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      writer.start();
      try {
        for (List<String> read : List.of(
            List.of("ls", live.toString()),
            List.of("show", live.toString(), "busy", "--revision", "1"),
            List.of("events", live.toString(), "busy"),
            List.of("verify", live.toString()))) {
          Cli.Result result = Cli.run(read.toArray(String[]::new));
          assertThat(result.exit()).as(read + "\n" + result).isZero();
          if (read.get(0).equals("verify")) {
            assertThat(result.out()).contains(" 0 damage");
          }
        }
      } finally {
        stop.set(true);
        writer.join();
      }
    }
    assertThat(failure.get()).isNull();
  }

  @Test
  void errorsAreOneLineNamingThePathWithAStackTraceOnlyWhenVerbose() throws Exception {
    Path nowhere = base.resolve("no-such-store");
    Cli.Result error = Cli.run("ls", nowhere.toString());
    assertThat(error.exit()).isEqualTo(3);
    assertThat(error.out()).isEmpty();
    assertThat(error.errLines()).singleElement().asString()
        .startsWith("ledger ls: ").contains(nowhere.toString());
    assertThat(nowhere).doesNotExist();

    Cli.Result verbose = Cli.run("--verbose", "ls", nowhere.toString());
    assertThat(verbose.exit()).isEqualTo(3);
    assertThat(verbose.errLines().get(0)).isEqualTo(error.errLines().get(0));
    assertThat(verbose.err()).contains("\tat dev.ledger.");

    Cli.Result usage = Cli.run("ls", store.toString(), "--nonsense");
    assertThat(usage.exit()).isEqualTo(2);
    assertThat(usage.errLines()).singleElement().asString().contains("--nonsense");
  }

  @Test
  void completionScriptAndLauncher() throws Exception {
    Cli.Result completion = Cli.run("generate-completion");
    assertThat(completion.exit()).isZero();
    assertThat(completion.out()).contains("complete -F", "ledger", "events", "--follow");

    Path root = Path.of("").toAbsolutePath().getParent(); // the module's parent: the checkout
    Path launcher = root.resolve("ledger");
    assertThat(launcher).isExecutable();
    Cli.Result version = Cli.run(new ProcessBuilder(launcher.toString(), "--version"));
    assertThat(version.exit()).as(version.toString()).isZero();
    assertThat(version.out()).startsWith("ledger 0.");

    Path elsewhere = Files.createDirectories(base.resolve("fresh-clone"));
    Files.copy(launcher, elsewhere.resolve("ledger"), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    Cli.Result unbuilt = Cli.run(new ProcessBuilder(elsewhere.resolve("ledger").toString(),
        "ls", "."));
    assertThat(unbuilt.exit()).isEqualTo(3);
    assertThat(unbuilt.errLines()).singleElement().asString()
        .contains("ledger-cli.jar not found", "mvn -B -pl ledger-cli -am package -DskipTests");
  }
}
