package dev.ledger.core.internal.journal;

import static dev.ledger.core.internal.journal.RecordLines.NOW;
import static dev.ledger.core.internal.journal.RecordLines.frame;
import static dev.ledger.core.internal.journal.RecordLines.thrown;
import static dev.ledger.core.internal.journal.RecordLines.written;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.json.LedgerJson;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class EventRecordReaderTest {
  private static final int SCALE = Integer.getInteger("ledger.torture.scale", 1);

  /** The events and shell as the full decode reads them; state and patch only by presence. */
  private static void assertSameAsFullDecode(byte[] line) {
    CommitRecord full = JournalLine.decode(line, line.length - 1);
    CommitRecord events = EventRecordReader.decode(line, line.length - 1);
    assertThat(events.events()).isEqualTo(full.events());
    assertThat(events.format()).isEqualTo(full.format());
    assertThat(events.root()).isEqualTo(full.root());
    assertThat(events.revision()).isEqualTo(full.revision());
    assertThat(events.committedAt()).isEqualTo(full.committedAt());
    assertThat(events.firstSequence()).isEqualTo(full.firstSequence());
    assertThat(events.commandId()).isEqualTo(full.commandId());
    assertThat(events.commandDigest()).isEqualTo(full.commandDigest());
    assertThat(events.stateVersion()).isEqualTo(full.stateVersion());
    assertThat(events.state() == null).isEqualTo(full.state() == null);
    assertThat(events.patch() == null).isEqualTo(full.patch() == null);
    if (events.state() != null) {
      assertThat(events.state()).isSameAs(NullNode.getInstance());
    } else {
      assertThat(events.patch()).isSameAs(NullNode.getInstance());
    }
  }

  @Test
  void aStateRecordWithACommandReadsTheSameEventsAsTheFullDecode() {
    assertSameAsFullDecode(JournalLine.encode(written(0, null, "cmd_" + "0".repeat(64))));
  }

  @Test
  void aPatchRecordWithoutACommandReadsTheSameEventsAsTheFullDecode() {
    CommitRecord record = written(4, RecordLines.previousState(), null);
    assertThat(record.patch()).isNotNull();
    assertSameAsFullDecode(JournalLine.encode(record));
  }

  @Test
  void aGroupedFormatRecordReadsTheSameAsTheFullDecode() {
    byte[] line = JournalLine.encode(written(4, null, null), 1);
    assertThat(new String(line, StandardCharsets.UTF_8)).contains("\"forcedThrough\":1");
    assertSameAsFullDecode(line);
  }

  @Test
  void eventsThatShareTheCommitTimeAndTypeAreEqualToThoseParsedApart() {
    CommitRecord record = EventRecordReader.decode(JournalLine.encode(written(0, null, null)),
        JournalLine.encode(written(0, null, null)).length - 1);
    assertThat(record.events()).extracting(e -> e.occurredAt()).containsOnly(NOW);
    assertThat(record.events().get(1).type()).isEqualTo("noted");
  }

  @Test
  void keysInAnotherOrderReadTheSameAsTheFullDecode() {
    String body = "{\"stateVersion\":0,\"root\":\"r\",\"revision\":1,\"format\":2,"
        + "\"firstSequence\":1,\"state\":{\"x\":1},\"events\":[{\"type\":\"t\",\"sequence\":1,"
        + "\"payload\":{\"b\":1,\"a\":2},\"occurredAt\":\"2026-01-01T00:00:00Z\","
        + "\"id\":\"i\"}],\"committedAt\":\"2026-01-01T00:00:00Z\"}";
    assertSameAsFullDecode(frame(body));
  }

  @Test
  void whatTheFullDecodeRefusesItRefusesTheSameWay() {
    String good = "{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[{\"id\":\"i\","
        + "\"occurredAt\":\"2026-01-01T00:00:00Z\",\"payload\":PAYLOAD,\"sequence\":1,"
        + "\"type\":\"t\"}],\"firstSequence\":1,\"format\":FORMAT,\"revision\":1,"
        + "\"root\":\"r\",\"state\":{}EXTRA,\"stateVersion\":0}";
    List<String> bodies = List.of(
        good.replace("PAYLOAD", "{\"a\":1,\"a\":2}").replace("FORMAT", "2").replace("EXTRA", ""),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"state\":{}"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"other\":1"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2")
            .replace("EXTRA", ",\"forcedThrough\":0"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"patch\":{}"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("\"sequence\":1",
            "\"sequence\":2"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("\"id\":\"i\",",
            "\"id\":\"i\",\"id\":\"j\","),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("\"type\":\"t\"",
            "\"type\":7"),
        // The record's own keys, as the shell checks them for both partial readers.
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", "")
            .replace("\"state\":{},", ""),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", "")
            .replace("\"revision\":1", "\"revision\":0"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", "")
            .replace("\"firstSequence\":1", "\"firstSequence\":0"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", "")
            .replace("\"stateVersion\":0", "\"stateVersion\":2147483648"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA", "")
            .replace("\"root\":\"r\"", "\"root\":1"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "3")
            .replace("EXTRA", ",\"forcedThrough\":0"),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2").replace("EXTRA",
            ",\"command\":{\"id\":\"c\"}"));
    RecordLines.assertRefusedAsTheFullDecodeRefuses(EventRecordReader::decode, bodies,
        good.replace("PAYLOAD", "{}").replace("FORMAT", "2")
            .replace("EXTRA", ""),
        good.replace("PAYLOAD", "{}").replace("FORMAT", "9")
            .replace("EXTRA", ""));
  }

  /** A record of one event with {@code payload} (JSON text), framed with its checksum. */
  private static byte[] withPayload(String payload) {
    return frame("{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[{\"id\":\"i\","
        + "\"occurredAt\":\"2026-01-01T00:00:00Z\",\"payload\":" + payload
        + ",\"sequence\":1,\"type\":\"t\"}],\"firstSequence\":1,\"format\":2,"
        + "\"revision\":1,\"root\":\"r\",\"state\":{},\"stateVersion\":0}");
  }

  /** The tree {@link PayloadTrees} builds from {@code json}, checked against the mapper's. */
  private static JsonNode builtAsTheMapperBuildsIt(String json) throws IOException {
    JsonNode expected = LedgerJson.parse(json.getBytes(StandardCharsets.UTF_8));
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    try (JsonParser in = LedgerJson.treeParser(bytes, 0, bytes.length)) {
      in.nextToken();
      JsonNode built = PayloadTrees.read(in);
      assertThat(built).as(json).isEqualTo(expected);
      assertThat(built.toString()).as(json).isEqualTo(expected.toString());
      return built;
    }
  }

  @Test
  void payloadsOfEveryKindTheBuilderTakesAreTheMappersTrees() throws IOException {
    String[] payloads = {
        "{}", "[]", "\"\"", "0", "-1", "true", "false", "null",
        "{\"a\":[1,-1,2147483647,2147483648,-2147483649,-9223372036854775808,"
            + "9223372036854775807,0,-0],\"b\":{\"c\":null,\"d\":true,\"e\":false,"
            + "\"f\":\"\",\"g\":\"\\u00e9\\n\\u2028\\\"\"},\"h\":[[],{},[[null]]],"
            + "\"\u00e9\":\"x\"}"};
    for (String payload : payloads) {
      JsonNode built = builtAsTheMapperBuildsIt(payload);
      assertSameAsFullDecode(withPayload(payload));
      if (built.isObject() && built.has("a")) {
        // IntNode and LongNode as the parser types each integer, as the mapper's reader does
        ArrayNode a = (ArrayNode) built.get("a");
        assertThat(a.get(2).isInt()).isTrue();
        assertThat(a.get(3).isLong()).isTrue();
        assertThat(a.get(4).isLong()).isTrue();
      }
    }
  }

  @Test
  void payloadsWithFloatsOrHugeIntegersAreLeftToTheMappersReader() throws IOException {
    String[] payloads = {"1.5", "{\"a\":[1,{\"b\":-0.0}]}", "[1e400]",
        "{\"n\":123456789012345678901234567890}", "3.14159265358979323846"};
    for (String payload : payloads) {
      byte[] bytes = payload.getBytes(StandardCharsets.UTF_8);
      try (JsonParser in = LedgerJson.treeParser(bytes, 0, bytes.length)) {
        in.nextToken();
        assertThatThrownBy(() -> PayloadTrees.read(in)).as(payload)
            .isInstanceOf(PayloadTrees.Unsupported.class);
      }
      assertSameAsFullDecode(withPayload(payload));
    }
  }

  @Test
  void aKeyRepeatedAnywhereInAPayloadIsRefusedAsTheFullDecodeRefusesIt() {
    for (String payload : List.of("{\"a\":1,\"a\":1}", "{\"x\":{\"a\":1,\"b\":2,\"a\":2}}",
        "[{\"a\":[],\"a\":{}}]", "{\"f\":1.5,\"a\":1,\"a\":2}",
        "{\"a\":1,\"a\":2,\"f\":1.5}")) {
      byte[] line = withPayload(payload);
      Throwable expected = thrown(() -> JournalLine.decode(line, line.length - 1));
      assertThat(expected).as(payload).isInstanceOf(JournalLine.InvalidRecordException.class);
      assertThatThrownBy(() -> EventRecordReader.decode(line, line.length - 1)).as(payload)
          .isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
    }
  }

  @Test
  void randomPayloadsWrittenByTheWriterReadTheSameAsTheFullDecode(TestSeed seed) {
    Random random = seed.random();
    for (int i = 0; i < 200 * SCALE; i++) {
      List<EventDraft> drafts = new ArrayList<>();
      int events = 1 + random.nextInt(5);
      for (int e = 0; e < events; e++) {
        drafts.add(new EventDraft("t" + random.nextInt(3), randomValue(random, 0), null, null));
      }
      CommitRequest request = new CommitRequest(0,
          JsonNodeFactory.instance.objectNode().put("n", i), 10, 0, drafts, null, null);
      byte[] line = JournalLine.encode(CommitRecord.next("root-1", 0, 1, null, request, NOW));
      try {
        assertSameAsFullDecode(line);
      } catch (AssertionError e) {
        throw new AssertionError(seed + " case " + i + ": "
            + new String(line, StandardCharsets.UTF_8), e);
      }
    }
  }

  /** A random JSON value: containers (shallower as it nests), strings, numbers of each kind. */
  private static JsonNode randomValue(Random random, int depth) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    int kind = random.nextInt(depth > 3 ? 7 : 9);
    return switch (kind) {
      case 0 -> nodes.textNode(random.nextBoolean() ? "" : "s\u00e9\n" + random.nextInt());
      case 1 -> nodes.numberNode(random.nextInt());
      case 2 -> nodes.numberNode(random.nextLong());
      // Floats and huge integers send a record to the mapper's reader: keep them rare.
      case 3 -> random.nextInt(8) != 0 ? nodes.numberNode(random.nextInt(1000))
          : nodes.numberNode(random.nextInt(4) == 0 ? random.nextDouble() * 1e300
              : random.nextGaussian());
      case 4 -> random.nextInt(8) != 0 ? nodes.numberNode(-random.nextInt(1000))
          : nodes.numberNode(new java.math.BigInteger(70 + random.nextInt(60), random));
      case 5 -> nodes.booleanNode(random.nextBoolean());
      case 6 -> nodes.nullNode();
      case 7 -> {
        ObjectNode object = nodes.objectNode();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          object.set("k" + random.nextInt(10), randomValue(random, depth + 1));
        }
        yield object;
      }
      default -> {
        ArrayNode array = nodes.arrayNode();
        int n = random.nextInt(5);
        for (int i = 0; i < n; i++) {
          array.add(randomValue(random, depth + 1));
        }
        yield array;
      }
    };
  }
}
