package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CommandConflictException;
import dev.ledger.core.CommitResult;
import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.StateType;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store written by the format-1 library (journal records and checkpoint of format 1, command
 * digests over drafts and state) keeps working: it loads, its commands replay instead of
 * conflicting, {@code command(id)} finds them, and new commits append format 2 records after
 * the old ones. The fixture ({@code src/test/resources/fixtures/format1-store}, described in
 * {@code fixtures/README.md}) was written by the library before this change; its bytes are
 * never regenerated.
 */
class Format1JournalTest {
  /** The state type the fixture was written with. */
  record Plan(String name, int steps, List<String> done) {}

  /** The same state after a rename of {@code name} to {@code title}. */
  record Titled(String title, int steps, List<String> done) {}

  static final StateType<Titled> TITLED = StateType.of(Titled.class).withUpcaster(0, tree -> {
    ObjectNode plan = (ObjectNode) tree;
    plan.set("title", plan.remove("name"));
    return plan;
  });

  static final LedgerOptions OPTIONS = LedgerOptions.defaults()
      .withClock(Clock.fixed(Instant.parse("2026-02-01T00:00:00Z"), ZoneOffset.UTC))
      .withCheckpointInterval(3);

  @TempDir
  Path dir;
  Path base;
  Path segment;
  byte[] fixtureJournal;

  @BeforeEach
  void copyFixture() throws IOException, URISyntaxException {
    Path fixture = Path.of(getClass().getResource("/fixtures/format1-store").toURI());
    base = dir.resolve("store");
    try (Stream<Path> all = Files.walk(fixture)) {
      for (Path p : (Iterable<Path>) all::iterator) {
        Path target = base.resolve(fixture.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    segment = base.resolve("ledgers/legacy/journal/00000000000000000001.jsonl");
    fixtureJournal = Files.readAllBytes(segment);
    assertThat(new String(fixtureJournal, StandardCharsets.UTF_8)).contains("\"format\":1")
        .doesNotContain("\"format\":2").doesNotContain("stateVersion");
  }

  private static Plan plan(int steps, String... done) {
    return new Plan("legacy", steps, List.of(done));
  }

  private static EventDraft done(String task) {
    return EventDraft.of("task.done", Map.of("task", task)).withCommandId("done/" + task);
  }

  /** The drafts of each command in the fixture, as its generator gave them. */
  private static List<EventDraft> drafts(String command) {
    return switch (command) {
      case "create" -> List.of(EventDraft.of("plan.created", Map.of("n", 0))
          .withCommandId("create"));
      case "done/t1" -> List.of(done("t1").withOperationId("op-1"),
          EventDraft.of("note", Map.of("ratio", 0.5)));
      case "done/t2" -> List.of(done("t2"));
      case "pay" -> List.of(EventDraft.of("paid",
          Map.of("amount", new BigDecimal("3.14159265358979323846"))).withCommandId("pay"));
      case "done/t3" -> List.of(done("t3"));
      default -> throw new IllegalArgumentException(command);
    };
  }

  @Test
  void theFixtureLoadsAndPages() {
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Plan> ledger = store.ledger("legacy", Plan.class);
      assertThat(ledger.load().state()).isEqualTo(plan(4, "t1", "t2", "t3"));
      assertThat(ledger.load().revision()).isEqualTo(5);
      List<Event> events = ledger.events(Cursor.START, 100).events();
      assertThat(events).extracting(Event::type).containsExactly("plan.created", "task.done",
          "note", "task.done", "paid", "task.done");
      assertThat(events.get(2).payloadAs(new TypeReference<Map<String, Double>>() {}))
          .isEqualTo(Map.of("ratio", 0.5));
    }
  }

  @Test
  void format1DigestsCoverTheDraftsAndTheState() throws IOException {
    JsonNode first = LedgerJson.parse(Arrays.copyOfRange(fixtureJournal, 30,
        indexOf(fixtureJournal, (byte) '\n') - 1));
    String recorded = first.get("command").get("digest").asText();
    // The format 1 content: the drafts as the intent digest has them, and the new state.
    ObjectNode content = JsonNodeFactory.instance.objectNode();
    content.putArray("events").addObject().put("type", "plan.created").put("operationId",
        (String) null).set("payload", JsonNodeFactory.instance.objectNode().put("n", 0));
    content.set("state", LedgerJson.tree(plan(0)));
    assertThat(LedgerJson.sha256Hex(LedgerJson.canonical(content))).isEqualTo(recorded);
    assertThat(CommandDigests.intent(drafts("create"))).isNotEqualTo(recorded);
  }

  @Test
  void identicalRetriesOfFormat1CommandsReplay() throws IOException {
    Map<String, Plan> states = Map.of("create", plan(0), "done/t1", plan(1, "t1"),
        "done/t2", plan(2, "t1", "t2"), "pay", plan(3, "t1", "t2"),
        "done/t3", plan(4, "t1", "t2", "t3"));
    Map<String, Long> revisions = Map.of("create", 1L, "done/t1", 2L, "done/t2", 3L,
        "pay", 4L, "done/t3", 5L);
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Plan> ledger = store.ledger("legacy", Plan.class);
      for (String command : states.keySet()) {
        long revision = revisions.get(command);
        CommitResult again = ledger.commit(revision - 1, states.get(command), drafts(command));
        assertThat(again.replayed()).as(command).isTrue();
        assertThat(again.revision()).as(command).isEqualTo(revision);
        assertThat(again.committedAt()).isEqualTo(Instant.parse("2026-01-01T00:00:00Z"));
      }
      assertThat(ledger.load().revision()).isEqualTo(5);
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(fixtureJournal);
  }

  @Test
  void format1CommandsRetriedOnAReDerivedStateReplay() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Plan> ledger = store.ledger("legacy", Plan.class);
      for (String command : List.of("create", "done/t1", "done/t2", "pay", "done/t3")) {
        CommitResult again = ledger.commit(5, plan(9, "re-derived"), drafts(command));
        assertThat(again.replayed()).as(command).isTrue();
      }
      assertThat(ledger.commit(5, plan(9), drafts("done/t1")).events())
          .extracting(Event::sequence).containsExactly(2L, 3L);
      assertThat(ledger.load().revision()).isEqualTo(5);
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(fixtureJournal);
  }

  @Test
  void format1CommandsRetriedWithOtherDraftsConflict() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Plan> ledger = store.ledger("legacy", Plan.class);
      assertThatThrownBy(() -> ledger.commit(1, plan(1, "t1"),
          done("t9").withCommandId("done/t1").withOperationId("op-1"),
          EventDraft.of("note", Map.of("ratio", 0.5))))
          .isInstanceOfSatisfying(CommandConflictException.class, e -> {
            assertThat(e.recordedRevision()).isEqualTo(2);
            assertThat(e.recordedDigest()).isEqualTo(CommandDigests.intent(drafts("done/t1")));
          });
      assertThatThrownBy(() -> ledger.commit(4, plan(4, "t1", "t2", "t3"),
          done("t3").withOperationId("op-3")))
          .isInstanceOf(CommandConflictException.class);
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(fixtureJournal);
  }

  @Test
  void commandLookupFindsFormat1Commands() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      Ledger<Plan> ledger = store.ledger("legacy", Plan.class);
      // create, done/t1 and done/t2 are in the command index; pay and done/t3 only in the
      // journal, after the checkpoint.
      assertThat(ledger.command("create").orElseThrow().revision()).isEqualTo(1);
      assertThat(ledger.command("done/t1").orElseThrow().events()).hasSize(2);
      assertThat(ledger.command("done/t2").orElseThrow().revision()).isEqualTo(3);
      assertThat(ledger.command("pay").orElseThrow().events().get(0).payload().get("amount")
          .asDouble()).isEqualTo(Math.PI);
      CommitResult t3 = ledger.command("done/t3").orElseThrow();
      assertThat(t3.revision()).isEqualTo(5);
      assertThat(ledger.events(t3.cursor(), 10).events()).isEmpty();
      assertThat(ledger.command("done/t4")).isEmpty();
    }
    assertThat(Files.readAllBytes(segment)).isEqualTo(fixtureJournal);
  }

  @Test
  void newCommitsAppendFormat2RecordsAfterTheFormat1Ones() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Titled> ledger = store.ledger("legacy", TITLED);
      Titled current = ledger.load().state();
      assertThat(current).isEqualTo(new Titled("legacy", 4, List.of("t1", "t2", "t3")));
      ledger.commit(5, new Titled("legacy", 5, List.of("t1", "t2", "t3", "t4")), done("t4"));
    }
    byte[] journal = Files.readAllBytes(segment);
    assertThat(Arrays.copyOf(journal, fixtureJournal.length)).isEqualTo(fixtureJournal);
    String added = new String(journal, fixtureJournal.length,
        journal.length - fixtureJournal.length, StandardCharsets.UTF_8);
    assertThat(added).contains("\"format\":2").contains("\"stateVersion\":1")
        .contains("\"title\":\"legacy\"").endsWith("\n");
    assertThat(Files.readString(base.resolve("ledgers/legacy/state.json")))
        .contains("\"format\" : 2").contains("\"stateVersion\" : 1");

    try (FileLedgerStore store = FileLedgerStore.open(base, OPTIONS)) {
      Ledger<Titled> ledger = store.ledger("legacy", TITLED);
      assertThat(ledger.load().state().done()).containsExactly("t1", "t2", "t3", "t4");
      assertThat(ledger.load().revision()).isEqualTo(6);
      assertThat(ledger.command("done/t4").orElseThrow().revision()).isEqualTo(6);
      assertThat(ledger.command("done/t3").orElseThrow().revision()).isEqualTo(5);
      assertThat(ledger.commit(2, new Titled("x", 0, List.of()), drafts("done/t2")).revision())
          .isEqualTo(3);
    }
  }

  private static int indexOf(byte[] bytes, byte b) {
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
