package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.internal.json.LedgerJson;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * A checkpoint encoded around its state's canonical bytes ({@link Checkpoint#encodeCompact(
 * byte[])}) is the file the tree form writes, and reads back as the same checkpoint.
 */
class CheckpointBytesEncodingTest {
  @Test
  void bytesFormIsTheTreeForm() throws Exception {
    ObjectNode state = JsonNodeFactory.instance.objectNode();
    state.putObject("c").putObject("t\"\u00e9").put("x", 1.5e-9).putArray("a").addNull();
    state.put("z", "\u0001\ud834\udd1e");
    Instant at = Instant.parse("2026-01-02T03:04:05.123456789Z");
    for (String root : new String[] {"r", "odd \"root\" \u00e9"}) {
      Checkpoint tree = new Checkpoint(root, 42, at, 7, 3, 12345, state, 2);
      Checkpoint header = new Checkpoint(root, 42, at, 7, 3, 12345, null, 2);
      byte[] expected = tree.encodeCompact();
      byte[] actual = header.encodeCompact(LedgerJson.canonical(state));
      assertThat(new String(actual, java.nio.charset.StandardCharsets.UTF_8))
          .isEqualTo(new String(expected, java.nio.charset.StandardCharsets.UTF_8));
    }
  }
}
