package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.Event;
import dev.ledger.core.EventDraft;
import dev.ledger.core.spi.CommitRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The verify decoder ({@link JournalLine#decodeWithoutPayloads}, streamed by
 * {@link PayloadSkippingReader}) accepts and refuses exactly what the full decoder does, in
 * the places where it takes short cuts: duplicate keys (checked by hand in the record and its
 * events, by the parser elsewhere) and instants (reused when equal to the event before).
 */
class PayloadSkippingReaderTest {
  private static final Instant AT = Instant.parse("2026-01-01T00:00:00.5Z");

  /** The body of a record of three events with nested payloads and a command. */
  private static String body() {
    var state = JsonNodeFactory.instance.objectNode().put("a", 1);
    state.putObject("n").put("x", 2);
    CommitRequest request = new CommitRequest(0, state, 20, 0, List.of(
        EventDraft.of("t", Map.of("p", Map.of("q", List.of(Map.of("r", 1), 2)), "s", "x")),
        EventDraft.of("t", Map.of("p", 1)).withOperationId("op"),
        EventDraft.of("u", Map.of())), "cmd_" + "0".repeat(64), "f".repeat(64));
    byte[] line = JournalLine.encode(
        CommitRecord.next("root-1", 0, 1, null, request, AT));
    return new String(line, 0, line.length - 2, StandardCharsets.UTF_8)
        .substring("{\"crc32c\":\"00000000\",\"commit\":".length());
  }

  /** A line for {@code body} with a checksum that holds. */
  private static byte[] line(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    return ("{\"crc32c\":\"" + HexFormat.of().toHexDigits((int) crc.getValue()) + "\",\"commit\":"
        + body + "}").getBytes(StandardCharsets.UTF_8);
  }

  private static void bothRefuse(String body) {
    byte[] line = line(body);
    assertThatThrownBy(() -> JournalLine.decode(line, line.length)).as(body)
        .isInstanceOf(JournalLine.InvalidRecordException.class);
    assertThatThrownBy(() -> JournalLine.decodeWithoutPayloads(line, line.length)).as(body)
        .isInstanceOf(JournalLine.InvalidRecordException.class);
  }

  @Test
  void soundRecordReadsAsTheFullDecoderReadsItWithoutPayloads() {
    byte[] line = line(body());
    CommitRecord full = JournalLine.decode(line, line.length);
    CommitRecord shell = JournalLine.decodeWithoutPayloads(line, line.length);
    assertThat(shell.events()).hasSize(3);
    for (int i = 0; i < 3; i++) {
      Event a = full.events().get(i);
      assertThat(shell.events().get(i)).isEqualTo(new Event(a.id(), a.rootId(), a.sequence(),
          a.revision(), a.type(), a.occurredAt(), JsonNodeFactory.instance.nullNode(),
          a.commandId(), a.operationId()));
    }
    assertThat(shell.state()).isEqualTo(full.state());
    assertThat(shell.commandId()).isEqualTo(full.commandId());
    assertThat(shell.committedAt()).isEqualTo(AT);
  }

  @Test
  void duplicateKeysAreRefusedAtEveryDepth() {
    String body = body();
    assertThat(body).contains("\"type\":\"t\"}", "{\"r\":1}", "\"s\":\"x\"}", "\"a\":1,",
        "\"x\":2}", "\"revision\":1,", "\"digest\":\"");
    bothRefuse(body.replaceFirst("\"type\":\"t\"\\}", "\"type\":\"t\",\"type\":\"t\"}"));
    bothRefuse(body.replaceFirst("\"type\":\"t\"\\}", "\"type\":\"t\",\"id\":\"x\"}"));
    bothRefuse(body.replace("{\"r\":1}", "{\"r\":1,\"r\":1}"));
    bothRefuse(body.replace("\"s\":\"x\"}", "\"s\":\"x\",\"p\":0}"));
    bothRefuse(body.replace("\"a\":1,", "\"a\":1,\"a\":2,"));
    bothRefuse(body.replace("\"x\":2}", "\"x\":2,\"x\":2}"));
    bothRefuse(body.replace("\"revision\":1,", "\"revision\":1,\"revision\":1,"));
    bothRefuse(body.replace("\"revision\":1,", "\"revision\":1,\"events\":[],"));
    bothRefuse(body.replace("\"digest\":\"", "\"id\":\"x\",\"digest\":\""));
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      many.append(",\"k").append(i).append("\":").append(i);
    }
    String wide = body.replace("\"s\":\"x\"}", "\"s\":\"x\"" + many + "}");
    byte[] line = line(wide);
    assertThat(JournalLine.decodeWithoutPayloads(line, line.length).events()).hasSize(3);
    bothRefuse(body.replace("\"s\":\"x\"}", "\"s\":\"x\"" + many + ",\"k3\":0}"));
  }

  @Test
  void everyEventsInstantIsCheckedEvenWhenTheFirstIsReused() {
    String body = body();
    String at = "\"occurredAt\":\"" + AT + "\"";
    int second = body.indexOf(at, body.indexOf(at) + 1);
    assertThat(second).isPositive();
    String later = body.substring(0, second) + "\"occurredAt\":\"2026-01-01T00:00:01Z\""
        + body.substring(second + at.length());
    byte[] line = line(later);
    assertThat(JournalLine.decodeWithoutPayloads(line, line.length).events())
        .extracting(Event::occurredAt)
        .containsExactly(AT, Instant.parse("2026-01-01T00:00:01Z"), AT);
    bothRefuse(body.substring(0, second) + "\"occurredAt\":\"2026-01-01T00:00:0xZ\""
        + body.substring(second + at.length()));
    bothRefuse(body.substring(0, second) + "\"occurredAt\":\"" + AT.toString().replace("Z", "")
        + "\"" + body.substring(second + at.length()));
  }
}
