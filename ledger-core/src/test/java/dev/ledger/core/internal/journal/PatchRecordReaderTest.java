package dev.ledger.core.internal.journal;

import static dev.ledger.core.internal.journal.RecordLines.frame;
import static dev.ledger.core.internal.journal.RecordLines.written;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.NullNode;
import dev.ledger.core.Event;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PatchRecordReaderTest {

  /** The shell, state and patch as the full decode reads them; events only by sequence. */
  private static void assertSameAsFullDecode(byte[] line) {
    CommitRecord full = JournalLine.decode(line, line.length - 1);
    CommitRecord patches = PatchRecordReader.decode(line, line.length - 1);
    assertThat(patches.format()).isEqualTo(full.format());
    assertThat(patches.root()).isEqualTo(full.root());
    assertThat(patches.revision()).isEqualTo(full.revision());
    assertThat(patches.committedAt()).isEqualTo(full.committedAt());
    assertThat(patches.firstSequence()).isEqualTo(full.firstSequence());
    assertThat(patches.nextSequence()).isEqualTo(full.nextSequence());
    assertThat(patches.commandId()).isEqualTo(full.commandId());
    assertThat(patches.commandDigest()).isEqualTo(full.commandDigest());
    assertThat(patches.stateVersion()).isEqualTo(full.stateVersion());
    assertThat(patches.state()).isEqualTo(full.state());
    assertThat(patches.patch()).isEqualTo(full.patch());
    assertThat(patches.events()).extracting(Event::sequence)
        .isEqualTo(full.events().stream().map(Event::sequence).toList());
    assertThat(patches.events()).extracting(Event::payload).containsOnly(NullNode.getInstance());
  }

  @Test
  void aStateRecordWithACommandReadsTheSameStateAsTheFullDecode() {
    CommitRecord record = written(0, null, "cmd_" + "0".repeat(64));
    assertThat(record.state()).isNotNull();
    assertSameAsFullDecode(JournalLine.encode(record));
  }

  @Test
  void aPatchRecordWithoutACommandReadsTheSamePatchAsTheFullDecode() {
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
  void keysInAnotherOrderReadTheSameAsTheFullDecode() {
    String body = "{\"stateVersion\":0,\"root\":\"r\",\"revision\":1,\"format\":2,"
        + "\"firstSequence\":1,\"state\":{\"x\":1},\"events\":[{\"type\":\"t\",\"sequence\":1,"
        + "\"payload\":{\"b\":1,\"a\":2},\"occurredAt\":\"2026-01-01T00:00:00Z\","
        + "\"id\":\"i\"}],\"committedAt\":\"2026-01-01T00:00:00Z\"}";
    assertSameAsFullDecode(frame(body));
  }

  @Test
  void whatTheFullDecodeRefusesInTheRecordOrItsStateItRefusesTheSameWay() {
    String good = "{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[{\"id\":\"i\","
        + "\"occurredAt\":\"2026-01-01T00:00:00Z\",\"payload\":{},\"sequence\":1,"
        + "\"type\":\"t\"}],\"firstSequence\":1,\"format\":FORMAT,\"revision\":1,"
        + "\"root\":\"r\",\"state\":STATEEXTRA,\"stateVersion\":0}";
    List<String> bodies = List.of(
        good.replace("STATE", "{\"a\":1,\"a\":2}").replace("FORMAT", "2").replace("EXTRA", ""),
        good.replace("STATE", "{\"a\":{\"b\":[{\"k\":1,\"k\":1}]}}").replace("FORMAT", "2")
            .replace("EXTRA", ""),
        good.replace("STATE", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"state\":{}"),
        good.replace("STATE", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"other\":1"),
        good.replace("STATE", "{}").replace("FORMAT", "2")
            .replace("EXTRA", ",\"forcedThrough\":0"),
        good.replace("STATE", "{}").replace("FORMAT", "2").replace("EXTRA", ",\"patch\":{}"),
        good.replace("STATE", "{}").replace("FORMAT", "2").replace("\"revision\":1",
            "\"revision\":\"1\""));
    RecordLines.assertRefusedAsTheFullDecodeRefuses(PatchRecordReader::decode, bodies,
        good.replace("STATE", "{}").replace("FORMAT", "2")
            .replace("EXTRA", ""),
        good.replace("STATE", "{}").replace("FORMAT", "9")
            .replace("EXTRA", ""));
  }

  @Test
  void eventsAreCountedNotCheckedTheirContentsAreVerifysToCheck() {
    // A repeated key in a payload: the full decode refuses the record; a patch log's replay,
    // which hands out no events, steps over it (verify and the event readers refuse it).
    String body = "{\"committedAt\":\"2026-01-01T00:00:00Z\",\"events\":[{\"id\":\"i\","
        + "\"occurredAt\":\"2026-01-01T00:00:00Z\",\"payload\":{\"a\":1,\"a\":2},"
        + "\"sequence\":1,\"type\":\"t\"},{}],\"firstSequence\":3,\"format\":2,\"revision\":2,"
        + "\"root\":\"r\",\"patch\":{\"x\":1},\"stateVersion\":0}";
    byte[] line = frame(body);
    assertThatThrownBy(() -> JournalLine.decode(line, line.length - 1))
        .isInstanceOf(JournalLine.InvalidRecordException.class);
    CommitRecord record = PatchRecordReader.decode(line, line.length - 1);
    assertThat(record.firstSequence()).isEqualTo(3);
    assertThat(record.nextSequence()).isEqualTo(5);
    assertThat(record.patch().get("x").intValue()).isEqualTo(1);
  }
}
