package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Cursor;
import dev.ledger.core.Durability;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.LimitExceededException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Size limits travel with the data: {@code store.json} records the largest limits any writer
 * used, every store bounds its reads by them, and raising them is atomic and durable.
 */
@ExtendWith(SeedExtension.class)
class StoreLimitsTest {
  private static final int MIB = 1024 * 1024;
  /** A state of this many characters has a checkpoint beyond the default read bound. */
  private static final int LARGE_STATE_CHARS = 33 * MIB;
  private static final LedgerOptions FAST = LedgerOptions.defaults()
      .withDurability(Durability.UNSAFE_NO_SYNC);
  private static final LedgerOptions LARGE = FAST.withLimits(48 * MIB, 2 * MIB);
  private static final String FORMAT_1_MARKER =
      "{\n  \"format\" : 1,\n  \"kind\" : \"dev.ledger.store\"\n}\n";

  @TempDir
  Path dir;

  private static JsonNode state(String text) {
    return JsonNodeFactory.instance.objectNode().put("text", text);
  }

  /**
   * A state whose canonical JSON has about {@code chars} bytes, in strings of 1 MiB (the JSON
   * reader takes strings of up to 20 million characters).
   */
  private static JsonNode large(int chars, char c) {
    ObjectNode node = JsonNodeFactory.instance.objectNode();
    for (int i = 0; i * MIB < chars; i++) {
      node.put(String.format("part%03d", i), String.valueOf(c).repeat(Math.min(MIB,
          chars - i * MIB)));
    }
    return node;
  }

  private static int size(JsonNode large) {
    int n = 0;
    for (JsonNode part : large) {
      n += part.textValue().length();
    }
    return n;
  }

  private static String marker(Path base) throws IOException {
    return Files.readString(base.resolve("store.json"));
  }

  private static StoreMarker.Limits recorded(Path base) throws IOException {
    return StoreMarker.decode(base.resolve("store.json"),
        Files.readAllBytes(base.resolve("store.json")));
  }

  @Test
  void aStoreWrittenWithLargeStatesIsReadByOpenReadOnlyAndByADefaultWriter() throws IOException {
    Path base = dir.resolve("large");
    JsonNode big = large(LARGE_STATE_CHARS, 'x');
    try (FileLedgerStore store = FileLedgerStore.open(base, LARGE)) {
      store.ledger("big", JsonNode.class).commit(0, big,
          EventDraft.of("written", Map.of("chars", LARGE_STATE_CHARS)));
    }
    assertThat(Files.size(base.resolve("ledgers/big/state.json")))
        .as("the checkpoint is beyond what default limits read")
        .isGreaterThan(2L * LedgerOptions.defaults().maxStateBytes() + 64 * 1024);
    assertThat(marker(base)).isEqualTo("{\n  \"format\" : 2,\n  \"kind\" : \"dev.ledger.store\",\n"
        + "  \"limits\" : {\n    \"maxEventPayloadBytes\" : 2097152,\n"
        + "    \"maxStateBytes\" : 50331648\n  }\n}\n");

    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      Ledger<JsonNode> ledger = store.ledger("big", JsonNode.class);
      assertThat(ledger.load().state()).isEqualTo(big);
      assertThat(ledger.events(Cursor.START, 10).events()).hasSize(1);
    }

    try (FileLedgerStore store = FileLedgerStore.open(base, FAST)) {
      Ledger<JsonNode> ledger = store.ledger("big", JsonNode.class);
      assertThat(ledger.load().revision()).isEqualTo(1);
      assertThat(size(ledger.load().state())).isEqualTo(LARGE_STATE_CHARS);
      // Its own writes stay within its own (default) limits...
      assertThatThrownBy(() -> ledger.commit(1, big))
          .isInstanceOf(LimitExceededException.class);
      ledger.commit(1, state("small"));
    }
    // ...and it never lowers what the marker records.
    assertThat(recorded(base)).isEqualTo(new StoreMarker.Limits(48 * MIB, 2 * MIB));
  }

  @Test
  void withoutTheRecordedLimitsADefaultReaderWouldCallTheLargeCheckpointDamage()
      throws IOException {
    Path base = dir.resolve("large");
    try (FileLedgerStore store = FileLedgerStore.open(base, LARGE)) {
      store.ledger("big", JsonNode.class).commit(0, large(LARGE_STATE_CHARS, 'x'));
    }
    // The marker is what makes the difference: rewritten to the old shape (format 1, the
    // default limits), the same files are beyond a default reader's bound.
    Files.writeString(base.resolve("store.json"), FORMAT_1_MARKER);
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base)) {
      assertThatThrownBy(() -> store.ledger("big", JsonNode.class).load())
          .isInstanceOf(CorruptLedgerException.class).hasMessageContaining("state.json")
          .hasMessageContaining("bytes; at most");
    }
  }

  @Test
  void aReaderOpenedBeforeARaiseReadsWhatTheRaisingWriterWrote() throws IOException {
    Path base = dir.resolve("raised-later");
    JsonNode big = large(LARGE_STATE_CHARS, 'y');
    try (FileLedgerStore reader = FileLedgerStore.open(base, FAST)) {
      Ledger<JsonNode> early = reader.ledger("big", JsonNode.class);
      assertThat(early.find()).isEmpty();
      try (FileLedgerStore writer = FileLedgerStore.open(base, LARGE)) {
        writer.ledger("big", JsonNode.class).commit(0, big);
      }
      // The reader's bound came from the marker as it was; the checkpoint exceeds it, so it
      // reads the marker again instead of calling the checkpoint damage.
      assertThat(size(early.load().state())).isEqualTo(LARGE_STATE_CHARS);
    }
  }

  @Test
  void aStoreWithinTheDefaultLimitsKeepsTheFormatOneMarker() throws IOException {
    Path base = dir.resolve("defaults");
    FileLedgerStore.open(base, FAST).close();
    assertThat(marker(base)).isEqualTo(FORMAT_1_MARKER);
    // Smaller limits change nothing either: the marker records the larger of both.
    FileLedgerStore.open(base, FAST.withLimits(64 * 1024, 4096)).close();
    assertThat(marker(base)).isEqualTo(FORMAT_1_MARKER);
    assertThat(base.resolve(".lock")).as("no raise, no store lock").doesNotExist();
  }

  @Test
  void aWriterWithSmallerLimitsReadsEverythingAndWritesWithinItsOwn() throws IOException {
    Path base = dir.resolve("smaller");
    String ten = "z".repeat(10 * MIB);
    try (FileLedgerStore store = FileLedgerStore.open(base, FAST)) {
      store.ledger("r", JsonNode.class).commit(0, state(ten));
    }
    try (FileLedgerStore store = FileLedgerStore.open(base, FAST.withLimits(MIB, 64 * 1024))) {
      Ledger<JsonNode> ledger = store.ledger("r", JsonNode.class);
      assertThat(ledger.load().state().get("text").textValue()).hasSize(10 * MIB);
      assertThatThrownBy(() -> ledger.commit(1, state("w".repeat(2 * MIB))))
          .isInstanceOf(LimitExceededException.class).hasMessageContaining("1048576");
      ledger.commit(1, state("fits"));
    }
  }

  @Test
  void raisingRecordsTheLargerOfEachLimitAndNeverLowersOne() throws IOException {
    Path base = dir.resolve("raise");
    FileLedgerStore.open(base, FAST).close();
    FileLedgerStore.open(base, FAST.withLimits(32 * MIB, MIB)).close();
    assertThat(recorded(base)).isEqualTo(new StoreMarker.Limits(32 * MIB, MIB));
    FileLedgerStore.open(base, FAST.withLimits(16 * MIB, 4 * MIB)).close();
    assertThat(recorded(base)).isEqualTo(new StoreMarker.Limits(32 * MIB, 4 * MIB));
    FileLedgerStore.open(base, FAST).close();
    assertThat(recorded(base)).isEqualTo(new StoreMarker.Limits(32 * MIB, 4 * MIB));
    try (var entries = Files.list(base)) {
      assertThat(entries.map(p -> p.getFileName().toString()).sorted().toList())
          .as("the temp file of the raise is gone").containsExactly(".lock", "ledgers",
              "store.json");
    }
  }

  @Test
  void racingOpenersBothFindTheirLimitsRecorded() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (int round = 0; round < 20; round++) {
        Path base = dir.resolve("race-" + round);
        CountDownLatch start = new CountDownLatch(1);
        List<LedgerOptions> openers = List.of(FAST.withLimits(32 * MIB, MIB),
            FAST.withLimits(16 * MIB, 8 * MIB));
        List<Future<Object>> done = openers.stream().map(options -> pool.submit(() -> {
          start.await();
          FileLedgerStore.open(base, options).close();
          return null;
        })).toList();
        start.countDown();
        for (Future<Object> f : done) {
          f.get(60, TimeUnit.SECONDS);
        }
        assertThat(recorded(base)).as("round %s", round)
            .isEqualTo(new StoreMarker.Limits(32 * MIB, 8 * MIB));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void damagedOrNewerMarkersAreRefused() throws IOException {
    Path base = dir.resolve("bad");
    FileLedgerStore.open(base, FAST).close();
    Path file = base.resolve("store.json");
    Map<String, Class<? extends LedgerException>> cases = Map.of(
        "{\"format\":3,\"kind\":\"dev.ledger.store\"}", UnsupportedFormatException.class,
        "{\"format\":2,\"kind\":\"dev.ledger.store\"}", CorruptLedgerException.class,
        "{\"format\":2,\"kind\":\"dev.ledger.store\",\"limits\":{\"maxStateBytes\":1024,"
            + "\"maxEventPayloadBytes\":1048576}}", CorruptLedgerException.class,
        "{\"format\":2,\"kind\":\"dev.ledger.store\",\"limits\":{\"maxStateBytes\":\"big\","
            + "\"maxEventPayloadBytes\":1048576}}", CorruptLedgerException.class,
        "[1,2]", CorruptLedgerException.class,
        "", CorruptLedgerException.class);
    for (Map.Entry<String, Class<? extends LedgerException>> c : cases.entrySet()) {
      Files.writeString(file, c.getKey());
      for (boolean readOnly : new boolean[] {false, true}) {
        Throwable thrown = catchThrowable(() -> (readOnly ? FileLedgerStore.openReadOnly(base)
            : FileLedgerStore.open(base, LARGE)).close());
        assertThat(thrown).as("%s read-only %s", c.getKey(), readOnly)
            .isInstanceOf(c.getValue()).hasMessageContaining(file.toString());
        assertThat(Files.readString(file)).as("unchanged").isEqualTo(c.getKey());
      }
    }
  }

  /**
   * Power cut at each write, force, rename and create while a writer raises the marker: the
   * marker afterwards is the old one or the raised one, whole; a raise that returned survives
   * the cut; and the store opens and raises afterwards.
   */
  @ParameterizedTest
  @EnumSource(value = Op.class, names = {"WRITE", "FORCE", "MOVE", "CREATE"})
  void theMarkerRaiseSurvivesAPowerCutAtEveryStep(Op op, TestSeed testSeed) throws IOException {
    Random random = testSeed.random();
    String seed = testSeed.toString();
    StoreMarker.Limits raised = new StoreMarker.Limits(48 * MIB, 2 * MIB);
    int cuts = 0;
    for (int n = 1; ; n++) {
      String context = seed + ": power cut at " + op + " #" + n;
      Path real = Files.createDirectories(dir.resolve("cut-" + op + "-" + n)).resolve("store");
      try (FileLedgerStore store = FileLedgerStore.open(real)) {
        store.ledger("r", JsonNode.class).commit(0, state("kept"));
      }
      FaultyFileSystem fs = FaultyFileSystem.over(real.getParent());
      Path root = fs.root().resolve("store");
      fs.powerCutAt(op, n, random);
      Throwable failure = catchThrowable(() -> FileLedgerStore.open(root,
          LedgerOptions.defaults().withLimits(48 * MIB, 2 * MIB)).close());
      if (fs.injected() == 0) {
        assertThat(failure).as(context).isNull();
        // The raise returned: it is durable, whatever a power cut now drops.
        String lost = fs.cutPower(random);
        assertThat(recorded(real)).as("%s, then lost:%n%s", context, lost).isEqualTo(raised);
        break;
      }
      cuts++;
      assertThat(failure).as(context).isInstanceOf(LedgerException.class);
      assertThat(recorded(real)).as(context).isIn(StoreMarker.FORMAT_1_LIMITS, raised);
      try (FileLedgerStore store = FileLedgerStore.openReadOnly(real)) {
        assertThat(store.ledger("r", JsonNode.class).load().state()).as(context)
            .isEqualTo(state("kept"));
      }
      FileLedgerStore.open(real, LedgerOptions.defaults().withLimits(48 * MIB, 2 * MIB)).close();
      assertThat(recorded(real)).as(context).isEqualTo(raised);
      assertThat(n).as("%s: the loop ends", context).isLessThan(100);
    }
    assertThat(cuts).as("cuts injected at %s", op).isPositive();
  }

  @Test
  void theFormatOneMarkerIsTheOneEarlierVersionsWrote() {
    assertThat(new String(StoreMarker.encode(StoreMarker.FORMAT_1_LIMITS),
        StandardCharsets.UTF_8)).isEqualTo(FORMAT_1_MARKER);
  }
}
