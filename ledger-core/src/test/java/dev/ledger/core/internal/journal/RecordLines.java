package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.spi.CommitRequest;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.zip.CRC32C;

/** Journal lines for the tests of the readers that decode part of a record. */
final class RecordLines {
  static final Instant NOW = Instant.parse("2026-01-01T00:00:00.123Z");

  private RecordLines() {}

  /**
   * A record as the writer makes it: a state with escapes and a nested object, three events
   * (a decimal payload, shared types and times), a command when {@code commandId} is given; a
   * patch when {@code previousState} makes one smaller than the state.
   */
  static CommitRecord written(long previousRevision, ObjectNode previousState,
      String commandId) {
    ObjectNode state = JsonNodeFactory.instance.objectNode().put("a", "b\nc\"d").put("n", 1);
    state.putObject("docs").put("[\"k-1\"]", 1).put("k-2", "x".repeat(200));
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

  /** The state {@link #written} diffs against to make a patch record. */
  static ObjectNode previousState() {
    ObjectNode previous = JsonNodeFactory.instance.objectNode().put("a", "b\nc\"d").put("n", 0);
    previous.putObject("docs").put("[\"k-1\"]", 0).put("k-2", "x".repeat(200));
    return previous;
  }

  /** A journal line around {@code body}, with its checksum and newline. */
  static byte[] frame(String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    CRC32C crc = new CRC32C();
    crc.update(bytes);
    String line = String.format("{\"crc32c\":\"%08x\",\"commit\":%s}%n", crc.getValue(), body);
    return line.replace(System.lineSeparator(), "\n").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Asserts that {@code reader} refuses each of {@code bodies} (framed) with the exception
   * type and message of the full decode, which must refuse it as an invalid record; that a
   * record of a future format throws the future-format error; and that a torn line fails its
   * checksum.
   *
   * @param good a body the full decode accepts
   * @param future {@code good} with a format from the future
   */
  static void assertRefusedAsTheFullDecodeRefuses(
      BiFunction<byte[], Integer, CommitRecord> reader, List<String> bodies, String good,
      String future) {
    for (String body : bodies) {
      byte[] line = frame(body);
      Throwable expected = thrown(() -> JournalLine.decode(line, line.length - 1));
      assertThat(expected).as(body).isInstanceOf(JournalLine.InvalidRecordException.class);
      assertThatThrownBy(() -> reader.apply(line, line.length - 1)).as(body)
          .isInstanceOf(expected.getClass()).hasMessage(expected.getMessage());
    }
    byte[] futureLine = frame(future);
    assertThatThrownBy(() -> reader.apply(futureLine, futureLine.length - 1))
        .isInstanceOf(CommitRecord.FutureFormatException.class);
    byte[] torn = frame(good);
    torn[torn.length - 5] ^= 1;
    assertThatThrownBy(() -> reader.apply(torn, torn.length - 1))
        .isInstanceOf(JournalLine.DefectException.class)
        .isNotInstanceOf(JournalLine.InvalidRecordException.class)
        .hasMessageContaining("checksum mismatch");
  }

  /** What {@code r} throws. */
  static Throwable thrown(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      return e;
    }
    throw new AssertionError("expected a failure");
  }
}
