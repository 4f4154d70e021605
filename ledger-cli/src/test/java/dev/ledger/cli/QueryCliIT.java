package dev.ledger.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ledger.collections.Key;
import dev.ledger.collections.Schema;
import dev.ledger.collections.patchlog.PatchLogCollectionStore;
import dev.ledger.core.fs.FileLedgerStore;
import dev.ledger.testing.base.DirectorySnapshot;
import dev.ledger.testing.base.DirectorySnapshot.Aspect;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code ledger query} as a child process on a store written by ledger-collections with the
 * application's typed schema, which the command line never sees: stdout, stderr, exit codes.
 */
class QueryCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final DirectorySnapshot.Options EVERYTHING = DirectorySnapshot.Options.of(
      Aspect.CONTENT, Aspect.FILE_TIMES, Aspect.DIRECTORY_TIMES, Aspect.PERMISSIONS);

  /** Who owns a rollout. */
  record Meta(String owner, List<String> tags) {}

  /** The application's document type. */
  record Rollout(String rolloutId, String status, int attempts, String code, Meta meta) {}

  static final Schema SCHEMA = Schema.builder()
      .collection("rollouts", Rollout.class, List.of("rolloutId"), List.of("status"))
      .collection("retired", Rollout.class, List.of("rolloutId"))
      .queue("pending", String.class)
      .build();

  @TempDir
  static Path base;
  static Path store;

  static final List<Rollout> ROLLOUTS = List.of(
      new Rollout("r-1", "running", 1, "42", new Meta("ann", List.of("eu"))),
      new Rollout("r-2", "done", 3, "7", new Meta("bob", List.of("us", "eu"))),
      new Rollout("r-3", "running", 2, null, new Meta("ann", List.of())),
      new Rollout("r-4", "failed", 2, "42", null));

  @BeforeAll
  static void prepareStore() {
    store = base.resolve("store");
    try (FileLedgerStore ledgers = FileLedgerStore.open(store)) {
      PatchLogCollectionStore collections = PatchLogCollectionStore.on(ledgers, SCHEMA);
      collections.execute("team-a", tx -> {
        tx.collection("rollouts", Rollout.class).insert(ROLLOUTS.subList(0, 2));
        tx.queue("pending", String.class).enqueue(List.of("r-9"));
        return null;
      });
      collections.execute("team-a", tx -> {
        tx.collection("rollouts", Rollout.class).insert(ROLLOUTS.subList(2, 4));
        return null;
      });
      // A collection that had a document and has none now: empty, not unknown.
      collections.execute("team-a", tx -> {
        tx.collection("retired", Rollout.class).insert(List.of(ROLLOUTS.get(0)));
        return null;
      });
      collections.execute("team-a", tx -> {
        tx.collection("retired", Rollout.class).delete(List.of(ROLLOUTS.get(0)));
        return null;
      });
      collections.execute("team-b", tx -> {
        tx.queue("pending", String.class).enqueue(List.of("x"));
        return null;
      });
    }
  }

  private static List<String> ids(Cli.Result result) throws IOException {
    List<String> ids = new ArrayList<>();
    for (String line : result.outLines()) {
      ids.add(JSON.readTree(line).get("rolloutId").asText());
    }
    return ids;
  }

  private static Cli.Result query(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("query", store.toString(), "team-a"));
    all.addAll(List.of(args));
    return Cli.run(all.toArray(String[]::new));
  }

  @Test
  void everyDocumentInInsertionOrderWithTheCountOnStandardError() throws Exception {
    Cli.Result all = query("rollouts");
    assertThat(all.exit()).as(all.toString()).isZero();
    assertThat(ids(all)).containsExactly("r-1", "r-2", "r-3", "r-4");
    JsonNode first = JSON.readTree(all.outLines().get(0));
    assertThat(first).isEqualTo(JSON.valueToTree(ROLLOUTS.get(0)));
    // Stored documents hold no nulls: r-3 has no code, r-4 no meta.
    assertThat(JSON.readTree(all.outLines().get(2)).has("code")).isFalse();
    assertThat(all.errLines()).containsExactly("matched: 4, printed: 4, revision: 4");
  }

  @Test
  void whereValuesAreJsonWhenValidElseStrings() throws Exception {
    Cli.Result running = query("rollouts", "--where", "status=running");
    assertThat(running.exit()).as(running.toString()).isZero();
    assertThat(ids(running)).containsExactly("r-1", "r-3");

    Cli.Result two = query("rollouts", "--where", "attempts=2", "--where", "status=failed");
    assertThat(ids(two)).as(two.toString()).containsExactly("r-4");
    assertThat(two.errLines()).containsExactly("matched: 1, printed: 1, revision: 4");

    // 42 is a number and matches no string code; "42" in JSON quotes is the string.
    assertThat(ids(query("rollouts", "--where", "code=42"))).isEmpty();
    assertThat(ids(query("rollouts", "--where", "code=\"42\""))).containsExactly("r-1", "r-4");
    assertThat(ids(query("rollouts", "--where", "code=null"))).containsExactly("r-3");

    assertThat(ids(query("rollouts", "--where", "meta.owner=ann")))
        .containsExactly("r-1", "r-3");
    assertThat(ids(query("rollouts", "--where", "meta.tags=[\"us\",\"eu\"]")))
        .containsExactly("r-2");
    assertThat(ids(query("rollouts", "--where", "meta={\"owner\":\"bob\",\"tags\":[\"us\","
        + "\"eu\"]}"))).containsExactly("r-2");
    // Text after a JSON value makes the whole a string; so does an empty value.
    assertThat(ids(query("rollouts", "--where", "status=1 2"))).isEmpty();
    assertThat(ids(query("rollouts", "--where", "status="))).isEmpty();
    // A field no document has matches nothing (no schema to refuse it).
    Cli.Result none = query("rollouts", "--where", "nosuch=1");
    assertThat(none.exit()).isZero();
    assertThat(none.out()).isEmpty();
    assertThat(none.errLines()).containsExactly("matched: 0, printed: 0, revision: 4");
  }

  @Test
  void sortLimitAndOffset() throws Exception {
    assertThat(ids(query("rollouts", "--sort", "attempts"))).containsExactly("r-1", "r-3",
        "r-4", "r-2");
    assertThat(ids(query("rollouts", "--sort", "attempts:desc"))).containsExactly("r-2", "r-3",
        "r-4", "r-1");
    assertThat(ids(query("rollouts", "--sort", "meta.owner:asc"))).containsExactly("r-1",
        "r-3", "r-2", "r-4"); // missing last when ascending, first when descending
    assertThat(ids(query("rollouts", "--sort", "meta.owner:desc"))).containsExactly("r-4",
        "r-2", "r-1", "r-3");
    Cli.Result page = query("rollouts", "--sort", "attempts:desc", "--offset", "1",
        "--limit", "2");
    assertThat(ids(page)).as(page.toString()).containsExactly("r-3", "r-4");
    assertThat(page.errLines()).containsExactly("matched: 4, printed: 2, revision: 4");
    Cli.Result count = query("rollouts", "--where", "status=running", "--limit", "0");
    assertThat(count.out()).isEmpty();
    assertThat(count.errLines()).containsExactly("matched: 2, printed: 0, revision: 4");
  }

  @Test
  void anEmptyCollectionIsNotAnUnknownOne() throws Exception {
    Cli.Result empty = query("retired");
    assertThat(empty.exit()).as(empty.toString()).isZero();
    assertThat(empty.out()).isEmpty();
    assertThat(empty.errLines()).containsExactly("matched: 0, printed: 0, revision: 4");

    Cli.Result unknown = query("rollout");
    assertThat(unknown.exit()).as(unknown.toString()).isEqualTo(1);
    assertThat(unknown.out()).isEmpty();
    assertThat(unknown.errLines()).singleElement().asString().startsWith("ledger query: ")
        .contains("partition 'team-a'", "no collection 'rollout'",
            "its collections: retired, rollouts", store.toString());

    Cli.Result noCollections = Cli.run("query", store.toString(), "team-b", "rollouts");
    assertThat(noCollections.exit()).isEqualTo(1);
    assertThat(noCollections.errLines()).singleElement().asString()
        .contains("no collection 'rollouts'", "it holds no collection");

    Cli.Result noPartition = Cli.run("query", store.toString(), "team-z", "rollouts");
    assertThat(noPartition.exit()).isEqualTo(1);
    assertThat(noPartition.errLines()).singleElement().asString()
        .contains("partition 'team-z'", store.toString());
  }

  @Test
  void usageErrorsExitWithTwo() throws Exception {
    for (List<String> args : List.of(
        List.of("rollouts", "--where", "status"),
        List.of("rollouts", "--where", "=running"),
        List.of("rollouts", "--sort", "attempts:down"),
        List.of("rollouts", "--sort", ":desc"),
        List.of("rollouts", "--limit", "-1"),
        List.of("rollouts", "--offset", "-3"),
        List.of("rollouts", "--where", "a..b=1"),
        List.of("no such name"))) {
      Cli.Result result = query(args.toArray(String[]::new));
      assertThat(result.exit()).as(args + "\n" + result).isEqualTo(2);
      assertThat(result.out()).isEmpty();
      assertThat(result.errLines()).as(args + "\n" + result).singleElement().asString()
          .startsWith("ledger query: ");
    }
    Cli.Result badId = Cli.run("query", store.toString(), "../x", "rollouts");
    assertThat(badId.exit()).as(badId.toString()).isEqualTo(2);
    Cli.Result noStore = Cli.run("query", base.resolve("nowhere").toString(), "team-a",
        "rollouts");
    assertThat(noStore.exit()).isEqualTo(3);
    assertThat(base.resolve("nowhere")).doesNotExist();
    Cli.Result help = Cli.run("query", "--help");
    assertThat(help.exit()).isZero();
    assertThat(help.out()).startsWith("Usage: ledger query").contains("--where", "JSON");
  }

  @Test
  void changesNothingInAReadOnlyCopy() throws Exception {
    Path copy = base.resolve("read-only");
    try (Stream<Path> paths = Files.walk(store)) {
      for (Path path : paths.toList()) {
        Path target = copy.resolve(store.relativize(path).toString());
        if (Files.isDirectory(path)) {
          Files.createDirectories(target);
        } else {
          Files.copy(path, target);
        }
      }
    }
    setWritable(copy, false);
    try {
      DirectorySnapshot before = DirectorySnapshot.of(copy, EVERYTHING);
      for (List<String> args : List.of(List.of("rollouts"), List.of("retired"),
          List.of("rollouts", "--where", "status=done", "--sort", "attempts:desc"))) {
        List<String> all = new ArrayList<>(List.of("query", copy.toString(), "team-a"));
        all.addAll(args);
        Cli.Result result = Cli.run(all.toArray(String[]::new));
        assertThat(result.exit()).as(args + "\n" + result).isZero();
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
  void readsWhileAnotherProcessCommitsTransactions() throws Exception {
    Path live = base.resolve("live");
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger inserted = new AtomicInteger();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    try (FileLedgerStore ledgers = FileLedgerStore.open(live)) {
      PatchLogCollectionStore collections = PatchLogCollectionStore.on(ledgers, SCHEMA);
      collections.execute("busy", tx -> {
        tx.collection("rollouts", Rollout.class).insert(List.of(new Rollout("w-0", "running",
            0, null, null)));
        return null;
      });
      inserted.incrementAndGet();
      Thread writer = new Thread(() -> {
        try {
          for (int i = 1; !stop.get(); i++) {
            Rollout rollout = new Rollout("w-" + i, i % 2 == 0 ? "running" : "done", i, null,
                null);
            collections.execute("busy", tx -> {
              tx.collection("rollouts", Rollout.class).insert(List.of(rollout));
              tx.collection("rollouts", Rollout.class).get(Key.of("w-0")).orElseThrow();
              return null;
            });
            inserted.incrementAndGet();
            Thread.sleep(5); // a steady writer, not one that takes the machine's cores
          }
        } catch (Throwable e) {
          failure.set(e);
        }
      });
      writer.start();
      try {
        for (int round = 0; round < 3; round++) {
          int before = inserted.get();
          Cli.Result result = Cli.run("query", live.toString(), "busy", "rollouts");
          int after = inserted.get();
          assertThat(result.exit()).as(result.toString()).isZero();
          // Each line is one whole document, and the count lies between the commits
          // acknowledged before the run and those acknowledged after it.
          for (String line : result.outLines()) {
            assertThat(JSON.readTree(line).get("rolloutId").asText()).startsWith("w-");
          }
          assertThat(result.outLines().size()).isBetween(before, after);
          assertThat(result.errLines()).singleElement().asString()
              .isEqualTo("matched: " + result.outLines().size() + ", printed: "
                  + result.outLines().size() + ", revision: " + result.outLines().size());
        }
      } finally {
        stop.set(true);
        writer.join();
      }
    }
    assertThat(failure.get()).isNull();
  }
}
