package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ledger.core.CorruptLedgerException;
import dev.ledger.core.UnsupportedFormatException;
import dev.ledger.core.internal.json.LedgerJson;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The damaged-file rules {@link JsonFile} gives {@code state.json} (read whole and header
 * only) and {@code retention.json}: the same refusal for the same damage, naming the file,
 * and a valid file read back.
 */
class JsonFileTest {
  @TempDir
  Path dir;

  private Path file(String name, String content) throws Exception {
    Path file = dir.resolve(name);
    Files.write(file, content.getBytes(StandardCharsets.UTF_8));
    return file;
  }

  private Object checkpoint(Path file) {
    return Checkpoint.read(file, "r-1", 4096);
  }

  private Object header(Path file) {
    return Checkpoint.readHeader(file, "r-1", 4096);
  }

  private Object raw(Path file) {
    return Checkpoint.readRaw(file, "r-1", 4096);
  }

  private Object marker(Path file) {
    return RetentionMarker.read(file.getParent(), "r-1", 4096);
  }

  private void refusesAll(String content, String detail) throws Exception {
    Path state = file("state.json", content);
    Path marker = file(RetentionMarker.FILE, content);
    for (Function<Path, Object> read : java.util.List.<Function<Path, Object>>of(
        this::checkpoint, this::header, this::raw)) {
      assertThatThrownBy(() -> read.apply(state)).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining(state.toString()).hasMessageContaining(detail);
    }
    assertThatThrownBy(() -> marker(marker)).isInstanceOf(CorruptLedgerException.class)
        .hasMessageContaining(marker.toString()).hasMessageContaining(detail);
  }

  @Test
  void aMissingFileIsNone() {
    Path state = dir.resolve("state.json");
    assertThat(checkpoint(state)).isNull();
    assertThat(header(state)).isNull();
    assertThat(raw(state)).isNull();
    assertThat(marker(state)).isNull();
  }

  @Test
  void anEmptyFileIsDamage() throws Exception {
    refusesAll("", "empty file");
  }

  @Test
  void aFileThatIsNotJsonIsDamage() throws Exception {
    refusesAll("{\"format\": 2, \"root\": ", "not JSON");
    refusesAll("{} {}", "not JSON");
  }

  @Test
  void aValueThatIsNotAnObjectIsDamage() throws Exception {
    refusesAll("[1, 2]", "not a JSON object");
    refusesAll("7", "not a JSON object");
  }

  @Test
  void aFileOverTheBoundIsDamage() throws Exception {
    refusesAll("{\"pad\": \"" + "x".repeat(5000) + "\"}", "at most 4096 are read");
  }

  @Test
  void anotherRootOrANewerFormatIsRefused() throws Exception {
    refusesAll("{\"format\": 1, \"root\": \"r-2\", \"journal\": {}, \"base\": {}}",
        "field 'root' must be 'r-1'");
    Path state = file("state.json", "{\"format\": 3, \"root\": \"r-1\"}");
    assertThatThrownBy(() -> checkpoint(state)).isInstanceOf(UnsupportedFormatException.class);
    assertThatThrownBy(() -> header(state)).isInstanceOf(UnsupportedFormatException.class);
    assertThatThrownBy(() -> raw(state)).isInstanceOf(UnsupportedFormatException.class);
    Path marker = file(RetentionMarker.FILE, "{\"format\": 2, \"root\": \"r-1\"}");
    assertThatThrownBy(() -> marker(marker)).isInstanceOf(UnsupportedFormatException.class);
  }

  @Test
  void aValidCheckpointReadsBackWholeAndAsHeader() throws Exception {
    Checkpoint written = new Checkpoint("r-1", 7, Instant.parse("2026-12-01T10:00:00.123Z"), 12,
        1, 345, JsonNodeFactory.instance.objectNode().put("n", 7), 0);
    Path state = dir.resolve("state.json");
    Files.write(state, written.encode());
    assertThat(Checkpoint.read(state, "r-1", 4096)).isEqualTo(written);
    assertThat(Checkpoint.readHeader(state, "r-1", 4096))
        .isEqualTo(new Checkpoint("r-1", 7, written.updatedAt(), 12, 1, 345, null, 0));
  }

  @Test
  void aCompactCheckpointIsTheCanonicalFormOfTheIndentedOneAndReadsBack() throws Exception {
    com.fasterxml.jackson.databind.node.ObjectNode state = JsonNodeFactory.instance.objectNode();
    // Long plain and escaped strings (written a word at a time or character by character),
    // unsorted keys, nesting, numbers of each kind the writer takes.
    state.put("z", "long plain text ".repeat(40)).put("a", "tab\t quote\" \u00e9 \ud83d\ude00")
        .put("n", Long.MAX_VALUE).put("d", 0.25).put("t", true).putNull("nil");
    state.putObject("nested").put("b", 2).put("a", 1).putArray("list").add(1).add("x");
    for (Instant at : new Instant[] {Instant.parse("2026-12-01T10:00:00Z"),
        Instant.parse("2026-12-01T10:00:00.120Z"), Instant.parse("2026-12-01T10:00:00.000001Z")}) {
      Checkpoint written = new Checkpoint("r-1", 7, at, 12, 1, 345, state, 3);
      byte[] compact = written.encodeCompact();
      byte[] canonical = LedgerJson.canonical(LedgerJson.parse(written.encode()));
      assertThat(new String(compact, StandardCharsets.UTF_8))
          .isEqualTo(new String(canonical, StandardCharsets.UTF_8) + "\n");
      Path file = dir.resolve("state.json");
      Files.write(file, compact);
      assertThat(Checkpoint.read(file, "r-1", 1 << 16)).isEqualTo(written);
      // Compact (the state's end found from the file's end) and indented (stepped over).
      for (byte[] bytes : new byte[][] {compact, written.encode()}) {
        Files.write(file, bytes);
        Checkpoint.Raw raw = Checkpoint.readRaw(file, "r-1", 1 << 16);
        assertThat(raw.header()).isEqualTo(new Checkpoint("r-1", 7, at, 12, 1, 345, null, 3));
        assertThat(LedgerJson.parse(raw.bytes(), raw.stateOffset(), raw.stateLength()))
            .isEqualTo(state);
      }
    }
  }

  @Test
  void aRawReadChecksTheHeaderAroundTheState() throws Exception {
    String head = "{\"format\":2,\"journal\":{\"nextSequence\":1,\"offset\":0,\"segment\":1},"
        + "\"revision\":1,\"root\":\"r-1\",\"state\":{\"a\":1}";
    Path state = file("state.json", head + ",\"stateVersion\":0,\"updatedAt\":\"2026-12-01T10:00:00Z\"}");
    Checkpoint.Raw raw = Checkpoint.readRaw(state, "r-1", 4096);
    assertThat(new String(raw.bytes(), raw.stateOffset(), raw.stateLength(),
        StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    for (String tail : new String[] {",\"stateVersion\":0}",
        ",\"stateVersion\":0,\"updatedAt\":\"2026-12-01T10:00:00Z\"} x",
        ",\"stateVersion\":0,\"updatedAt\":\"2026-12-01T10:00:00Z\",\"root\":\"r-1\"}"}) {
      Path bad = file("state.json", head + tail);
      assertThatThrownBy(() -> raw(bad)).as(tail).isInstanceOf(CorruptLedgerException.class)
          .hasMessageContaining(bad.toString());
    }
  }
}
