package dev.ledger.core.internal.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(SeedExtension.class)
class JournalLineTest {
  private static CommitRecord record() {
    var state = JsonNodeFactory.instance.objectNode().put("a", "b\nc\"d");
    CommitRequest request = new CommitRequest(0, state, 20, 0,
        List.of(EventDraft.of("t", Map.of("p", "\u00e9\n\u2028"))), "cmd_" + "0".repeat(64),
        "f".repeat(64));
    return CommitRecord.next("root-1", 0, 1, null, request, Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  void encodedLineIsOneJsonLineThatDecodesBack() throws Exception {
    CommitRecord record = record();
    byte[] line = JournalLine.encode(record);
    assertThat(line[line.length - 1]).isEqualTo((byte) '\n');
    String text = new String(line, StandardCharsets.UTF_8);
    int firstNewline = 0;
    while (line[firstNewline] != '\n') {
      firstNewline++;
    }
    assertThat(firstNewline).isEqualTo(line.length - 1);
    assertThat(text).startsWith("{\"crc32c\":\"");
    assertThat(dev.ledger.core.internal.json.LedgerJson.parse(line).get("commit").get("revision").asLong())
        .isEqualTo(1);
    assertThat(JournalLine.decode(line, line.length - 1)).isEqualTo(record);
  }

  @Test
  void aRecordsCommandDigestIsTheIntentOfTheEventsItReadsBackWith() {
    var state = JsonNodeFactory.instance.objectNode().put("a", 1);
    var payload = JsonNodeFactory.instance.objectNode();
    payload.set("amount", DecimalNode.valueOf(new java.math.BigDecimal("3.14159265358979323846")));
    payload.set("cents", DecimalNode.valueOf(new java.math.BigDecimal("1.10")));
    List<EventDraft> drafts = List.of(new EventDraft("paid", payload, "c-1", "op-1"),
        EventDraft.of("noted", Map.of("n", 1)));
    String digest = CommandDigests.intent(drafts);
    CommitRequest request = new CommitRequest(0, state, 7, 3, drafts, "cmd_" + "0".repeat(64),
        digest);
    CommitRecord written = CommitRecord.next("root-1", 0, 1, null, request,
        Instant.parse("2026-01-01T00:00:00Z"));
    byte[] line = JournalLine.encode(written);
    CommitRecord read = JournalLine.decode(line, line.length - 1);
    assertThat(read.format()).isEqualTo(CommitRecord.FORMAT);
    assertThat(read.stateVersion()).isEqualTo(3);
    assertThat(read.events().get(0).payload()).isNotEqualTo(drafts.get(0).payload());
    assertThat(CommandDigests.intentOfRecorded(read.events())).isEqualTo(digest);
    assertThat(read.sameCommand(request)).isTrue();
    assertThat(new String(line, StandardCharsets.UTF_8)).contains("\"stateVersion\":3");
  }

  @Test
  void everySingleBitFlipIsDetected() {
    byte[] line = JournalLine.encode(record());
    for (int i = 0; i < line.length - 1; i++) {
      for (int bit = 0; bit < 8; bit++) {
        byte[] copy = line.clone();
        copy[i] ^= (byte) (1 << bit);
        int at = i;
        assertThatThrownBy(() -> JournalLine.decode(copy, copy.length - 1))
            .as("byte %s bit %s", at, bit).isInstanceOf(RuntimeException.class);
      }
    }
  }

  @Test
  void randomGarbageIsADefectNeverARecord(TestSeed seed) {
    Random random = seed.random();
    for (int i = 0; i < 5000; i++) {
      byte[] garbage = new byte[random.nextInt(200)];
      random.nextBytes(garbage);
      assertThatThrownBy(() -> JournalLine.decode(garbage, garbage.length)).as("%s", seed)
          .isInstanceOf(JournalLine.DefectException.class);
    }
  }

  @Test
  void truncatedLinesAreDefects() {
    byte[] line = JournalLine.encode(record());
    for (int length = 0; length < line.length - 1; length++) {
      int n = length;
      assertThatThrownBy(() -> JournalLine.decode(line, n)).isInstanceOf(
          JournalLine.DefectException.class);
    }
  }

  @Test
  void aLineIsTheChecksumAndTheCanonicalJsonOfTheRecordTree(TestSeed seed) {
    Random random = seed.random();
    var f = JsonNodeFactory.instance;
    var reused = new dev.ledger.core.internal.json.CanonicalWriter(16);
    for (int i = 0; i < 200; i++) {
      var previous = f.objectNode().put("n", random.nextInt(3)).put("body", "x".repeat(50));
      var state = f.objectNode().put("n", random.nextInt(3)).put("body", "x".repeat(50))
          .put("\u00e9t\u00e9", "\u2028\t" + i);
      var payload = f.objectNode().put("z", i).put("a", "q\"");
      boolean decimal = random.nextInt(4) == 0;
      if (decimal) {
        payload.set("d", DecimalNode.valueOf(new java.math.BigDecimal("1.10")));
      }
      List<EventDraft> drafts = random.nextBoolean() ? List.of()
          : List.of(new EventDraft("t" + i, payload, null, random.nextBoolean() ? "op" : null),
              EventDraft.of("u", Map.of("k", List.of(1, 2.5, "s"))));
      boolean command = random.nextBoolean();
      CommitRequest request = new CommitRequest(i, state, 1000, random.nextInt(3), drafts,
          command ? "cmd_" + "0".repeat(64) : null, command ? "f".repeat(64) : null);
      CommitRecord record = CommitRecord.next("root-" + i, i, 1 + i, random.nextBoolean()
          ? previous : null, request, Instant.ofEpochMilli(random.nextLong() >>> 24));
      byte[] body = dev.ledger.core.internal.json.LedgerJson.canonical(record.toJson());
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(body);
      String expected = "{\"crc32c\":\"" + java.util.HexFormat.of().toHexDigits(
          (int) crc.getValue()) + "\",\"commit\":" + new String(body, StandardCharsets.UTF_8)
          + "}\n";
      byte[] line = JournalLine.encode(record);
      assertThat(new String(line, StandardCharsets.UTF_8)).as("%s case %s", seed, i)
          .isEqualTo(expected);
      // Into a reused buffer (holding the last case's line, or the Jackson fallback's): the same.
      JournalLine.encodeInto(reused, record, record.revision() - 1);
      assertThat(Arrays.copyOf(reused.array(), reused.size())).as("%s case %s", seed, i)
          .isEqualTo(line);
      // A size hint, too small, exact or too large, changes only the buffer, not the line.
      for (int hint : new int[] {1, 40, body.length, line.length, 3 * line.length, 1 << 20}) {
        assertThat(JournalLine.encodeSized(record, hint)).as("%s case %s hint %s", seed, i, hint)
            .isEqualTo(line);
        assertThat(JournalLine.encode(record, record.revision() - 1, hint))
            .as("%s case %s hint %s", seed, i, hint).isEqualTo(line);
      }
      if (!decimal) { // a decimal reads back as a double
        assertThat(JournalLine.decode(line, line.length - 1)).as("%s case %s", seed, i)
            .isEqualTo(record);
      }
      // Written ahead of a force (group commit): format 3 with forcedThrough, the same rule.
      if (record.revision() >= 2) {
        long forced = random.nextInt((int) record.revision() - 1) - (random.nextBoolean() ? 1 : 0);
        var grouped = record.toJson();
        grouped.put("format", CommitRecord.GROUPED_FORMAT);
        grouped.put("forcedThrough", Math.max(0, forced));
        byte[] groupedBody = dev.ledger.core.internal.json.LedgerJson.canonical(grouped);
        java.util.zip.CRC32C groupedCrc = new java.util.zip.CRC32C();
        groupedCrc.update(groupedBody);
        byte[] groupedLine = JournalLine.encode(record, forced, random.nextInt(2000));
        JournalLine.encodeInto(reused, record, forced);
        assertThat(Arrays.copyOf(reused.array(), reused.size()))
            .as("%s case %s forced %s", seed, i, forced).isEqualTo(groupedLine);
        assertThat(new String(groupedLine,
            StandardCharsets.UTF_8)).as("%s case %s forced %s", seed, i, forced)
            .isEqualTo("{\"crc32c\":\"" + java.util.HexFormat.of().toHexDigits(
                (int) groupedCrc.getValue()) + "\",\"commit\":"
                + new String(groupedBody, StandardCharsets.UTF_8) + "}\n");
      }
    }
  }

  @Test
  void decodingWithoutPayloadsAcceptsAndRefusesWhatDecodingDoes(TestSeed seed) {
    Random random = seed.random();
    byte[] good = JournalLine.encode(record());
    CommitRecord full = JournalLine.decode(good, good.length - 1);
    CommitRecord shell = JournalLine.decodeWithoutPayloads(good, good.length - 1);
    assertThat(shell.events()).hasSameSizeAs(full.events());
    for (int i = 0; i < full.events().size(); i++) {
      var a = full.events().get(i);
      var b = shell.events().get(i);
      assertThat(b).isEqualTo(new dev.ledger.core.Event(a.id(), a.rootId(), a.sequence(),
          a.revision(), a.type(), a.occurredAt(), JsonNodeFactory.instance.nullNode(),
          a.commandId(), a.operationId()));
    }
    assertThat(shell.state()).isEqualTo(full.state());
    String body = new String(good, 0, good.length - 2, StandardCharsets.UTF_8)
        .substring("{\"crc32c\":\"00000000\",\"commit\":".length());
    String[] edits = {"\"sequence\":1", "\"sequence\":\"1\"", "\"payload\":", "\"pay\":",
        "\"type\":", "\"type\":1,\"x\":", "\"occurredAt\":\"", "\"occurredAt\":\"x",
        "\"events\":[", "\"events\":[1,", "}]", "}],\"events\":[]", "\"id\":", "\"id\":null,\"i\":",
        "\"revision\":1", "\"revision\":1.5"};
    for (int i = 0; i < 300; i++) {
      String mutated = body;
      int k = random.nextInt(edits.length / 2) * 2;
      if (random.nextBoolean()) {
        mutated = mutated.replace(edits[k], edits[k + 1]);
      } else {
        int at = random.nextInt(mutated.length());
        mutated = mutated.substring(0, at) + mutated.substring(at + 1);
      }
      byte[] bytes = mutated.getBytes(StandardCharsets.UTF_8);
      java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
      crc.update(bytes);
      byte[] line = ("{\"crc32c\":\"" + java.util.HexFormat.of().toHexDigits((int) crc.getValue())
          + "\",\"commit\":" + mutated + "}").getBytes(StandardCharsets.UTF_8);
      boolean fullDecodes = decodes(() -> JournalLine.decode(line, line.length));
      boolean shellDecodes = decodes(() -> JournalLine.decodeWithoutPayloads(line, line.length));
      assertThat(shellDecodes).as("%s case %s: %s", seed, i, mutated).isEqualTo(fullDecodes);
    }
  }

  private static boolean decodes(Runnable decode) {
    try {
      decode.run();
      return true;
    } catch (JournalLine.DefectException e) {
      return false;
    }
  }
}
