package dev.ledger.core.fs;

import static dev.ledger.core.fs.PatchFixture.ROOT;
import static dev.ledger.core.fs.PatchFixture.request;
import static dev.ledger.core.fs.PatchFixture.requests;
import static dev.ledger.core.fs.PatchFixture.state;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.VerifyReport;
import dev.ledger.core.Versioned;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal's group-commit stamps (format 3 {@code forcedThrough}): a record damaged by a
 * power cut in an unforced group, with later records of the group whole, is a torn tail
 * (cut, never reported as damage); damage to a record that a later record says was forced is
 * still damage.
 */
class GroupCommitJournalTest {
  @TempDir
  Path dir;

  private static LedgerOptions options() {
    return LedgerOptions.defaults();
  }

  private Path segment() {
    return dir.resolve("ledgers").resolve(ROOT).resolve("journal")
        .resolve("00000000000000000001.jsonl");
  }

  private List<String> lines() throws IOException {
    return new ArrayList<>(List.of(Files.readString(segment(), StandardCharsets.UTF_8)
        .replace("\0", "").split("\n")));
  }

  /** Flips one character inside the record body of line {@code index} (its checksum fails). */
  private void damage(int index) throws IOException {
    List<String> lines = lines();
    String line = lines.get(index);
    int at = line.indexOf("\"committedAt\"") + 2;
    lines.set(index, line.substring(0, at) + (line.charAt(at) == 'o' ? 'x' : 'o')
        + line.substring(at + 1));
    Files.writeString(segment(), String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
  }

  private static JsonNode body(String line) throws IOException {
    return LedgerJson.parse(line.substring(line.indexOf(",\"commit\":") + 10, line.length() - 1)
        .getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aBatchWritesOneFormat2RecordThenRecordsStampedWithWhatWasForced() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      store.patchLog(ROOT).commitPatches(requests(1, 4));
      store.patchLog(ROOT).commitPatch(request(5));
    }
    List<String> lines = lines();
    assertThat(lines).hasSize(5);
    assertThat(body(lines.get(0)).get("format").asInt()).isEqualTo(2);
    assertThat(body(lines.get(0)).has("forcedThrough")).isFalse();
    for (int i = 1; i < 4; i++) {
      JsonNode record = body(lines.get(i));
      assertThat(record.get("format").asInt()).as("record %s", i + 1).isEqualTo(3);
      assertThat(record.get("forcedThrough").asLong()).as("record %s", i + 1).isEqualTo(0);
    }
    // Written after the batch was forced: every record before it is durable, format 2.
    assertThat(body(lines.get(4)).get("format").asInt()).isEqualTo(2);
  }

  @Test
  void aDamagedRecordOfAnUnforcedGroupIsATornTailWithTheRestOfTheGroup() throws IOException {
    // A writer that dies after its batch (no close: the command index and checkpoint a close
    // writes would point at the records a power cut took).
    FileLedgerStore crashed = FileLedgerStore.open(dir, options());
    crashed.patchLog(ROOT).commitPatch(request(1));
    crashed.patchLog(ROOT).commitPatches(requests(2, 5));
    damage(2); // revision 3; revisions 4 and 5 say only revision 1 was forced
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      VerifyReport report = store.verify();
      assertThat(report.clean()).as("%s", report).isTrue();
      assertThat(report.notes()).isNotEmpty();
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      assertThat(ledger.load().revision()).isEqualTo(2);
      assertThat(ledger.load().state()).isEqualTo(state(2));
      // The writer cuts revisions 3 to 5 and goes on from 2.
      store.patchLog(ROOT).commitPatch(request(3));
      assertThat(ledger.find().map(Versioned::revision)).contains(3L);
      assertThat(store.verify().clean()).isTrue();
      assertThat(store.verify().notes()).isEmpty();
    }
    assertThat(lines()).hasSize(3);
  }

  @Test
  void aDamagedRecordThatALaterRecordSaysWasForcedIsDamage() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      store.patchLog(ROOT).commitPatches(requests(1, 3));
      store.patchLog(ROOT).commitPatch(request(4)); // format 2: 1 to 3 were forced
    }
    damage(1);
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      assertThat(store.verify().clean()).isFalse();
      Ledger<JsonNode> ledger = store.ledger(ROOT, JsonNode.class);
      assertThatThrownBy(ledger::load).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining("a valid record follows");
      assertThatThrownBy(() -> store.patchLog(ROOT).commitPatch(request(5)))
          .isInstanceOf(CorruptLedgerException.class);
    }
  }

  @Test
  void aStampProvesDamageOnlyToRecordsItSaysWereForced() throws IOException {
    try (FileLedgerStore store = FileLedgerStore.open(dir, options())) {
      store.patchLog(ROOT).commitPatches(requests(1, 5));
    }
    byte[] line = lines().get(4).getBytes(StandardCharsets.UTF_8);
    CommitRecord fifth = JournalLine.decode(line, line.length);
    byte[] stamped = JournalLine.encode(fifth, 2);
    int length = stamped.length - 1; // without the newline
    assertThat(JournalLine.provesDamageBefore(stamped, length, 2)).isTrue();
    assertThat(JournalLine.provesDamageBefore(stamped, length, 3)).isFalse();
    byte[] plain = JournalLine.encode(fifth, 4);
    assertThat(JournalLine.provesDamageBefore(plain, plain.length - 1, 4)).isTrue();
    assertThat(JournalLine.provesDamageBefore(plain, plain.length - 1, 5)).isTrue();
    stamped[40] ^= 1; // a bad checksum proves nothing
    assertThat(JournalLine.provesDamageBefore(stamped, length, 1)).isFalse();
  }
}
