package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.spi.CommitRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class EventRecordReaderTest {
  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00.123Z");

  private static CommitRecord written(long previousRevision, ObjectNode previousState,
      String commandId) {
    ObjectNode state = JsonNodeFactory.instance.objectNode().put("a", "b\nc\"d").put("n", 1);
    ObjectNode payload = JsonNodeFactory.instance.objectNode();
    payload.set("amount", DecimalNode.valueOf(new java.math.BigDecimal("3.14159265358979323846")));
    payload.put("text", "\u00e9\n\u2028");
    payload.putArray("list").add(1).add("x").addNull();
    List<EventDraft> drafts = List.of(new EventDraft("paid", payload, "c-1", "op-1"),
        EventDraft.of("noted", Map.of("n", 1)), EventDraft.of("noted", Map.of("n", 2)));
    CommitRequest request = new CommitRequest(previousRevision, state, 40, 3, drafts, commandId,
        commandId == null ? null : CommandDigests.intent(drafts));
    return CommitRecord.next("root-1", previousRevision, 5, previousState, request, NOW);
  }

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
    ObjectNode previous = JsonNodeFactory.instance.objectNode().put("a", "b\nc\"d").put("n", 0);
    CommitRecord record = written(4, previous, null);
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
            "\"type\":7"));
    for (String body : bodies) {
      byte[] line = frame(body);
      Throwable expected = thrown(() -> JournalLine.decode(line, line.length - 1));
      assertThat(expected).as(body).isInstanceOf(JournalLine.InvalidRecordException.class);
      assertThatThrownBy(() -> EventRecordReader.decode(line, line.length - 1)).as(body)
          .isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
    }
    byte[] future = frame(good.replace("PAYLOAD", "{}").replace("FORMAT", "9")
        .replace("EXTRA", ""));
    assertThatThrownBy(() -> EventRecordReader.decode(future, future.length - 1))
        .isInstanceOf(CommitRecord.FutureFormatException.class);
    byte[] torn = frame(good.replace("PAYLOAD", "{}").replace("FORMAT", "2")
        .replace("EXTRA", ""));
    torn[torn.length - 5] ^= 1;
    assertThatThrownBy(() -> EventRecordReader.decode(torn, torn.length - 1))
        .isInstanceOf(JournalLine.DefectException.class)
        .isNotInstanceOf(JournalLine.InvalidRecordException.class)
        .hasMessageContaining("checksum mismatch");
  }

  private static Throwable thrown(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }

  /** A journal line around {@code body}, with its checksum. */
  private static byte[] frame(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    String line = String.format("{\"crc32c\":\"%08x\",\"commit\":%s}%n", crc.getValue(), body);
    return line.replace(System.lineSeparator(), "\n").getBytes(StandardCharsets.UTF_8);
  }
}
