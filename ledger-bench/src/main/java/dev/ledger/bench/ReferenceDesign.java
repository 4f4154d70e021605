package dev.ledger.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;

/**
 * The reference design re-expressed in Java: the whole ledger, state and every event, is one
 * JSON document read, checked, and rewritten (pretty, sorted keys as the reference does) to a
 * temp file that is forced, moved over the ledger file, and followed by a directory force,
 * per commit. The reference's per-commit lock file is left out (it would only add cost).
 */
final class ReferenceDesign implements CommitTarget {
  private final Path file;
  private final Path temp;
  private long known;

  ReferenceDesign(Path file, int history) throws IOException {
    Files.createDirectories(file.getParent());
    this.file = file;
    this.temp = file.resolveSibling(file.getFileName() + ".tmp");
    if (!Files.exists(file)) {
      ObjectNode doc = Workload.JSON.createObjectNode();
      doc.put("revision", 0);
      doc.putNull("state");
      ArrayNode events = doc.putArray("events");
      for (int i = 1; i <= history; i++) {
        events.add(eventNode(i, 0));
      }
      doc.put("next_sequence", history + 1);
      Files.write(file, Workload.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc));
    }
    known = Workload.JSON.readTree(Files.readAllBytes(file)).get("revision").asLong();
  }

  private static ObjectNode eventNode(long sequence, long revision) {
    ObjectNode e = Workload.JSON.createObjectNode();
    e.put("sequence", sequence);
    e.put("revision", revision);
    e.put("type", "task.done");
    e.put("created_at", Instant.now().toString());
    e.set("payload", Workload.JSON.valueToTree(Workload.eventPayload(sequence)));
    return e;
  }

  @Override
  public void commit() throws IOException {
    ObjectNode doc = (ObjectNode) Workload.JSON.readTree(Files.readAllBytes(file));
    long revision = doc.get("revision").asLong();
    if (revision != known) {
      throw new IllegalStateException("revision conflict: expected " + known + ", is " + revision);
    }
    long next = revision + 1;
    long sequence = doc.get("next_sequence").asLong();
    JsonNode state = Workload.JSON.valueToTree(Workload.state(next));
    doc.put("revision", next);
    doc.set("state", state);
    ((ArrayNode) doc.get("events")).add(eventNode(sequence, next));
    doc.put("next_sequence", sequence + 1);
    doc.put("updated_at", Instant.now().toString());
    ReplaceFloor.writeForced(temp,
        Workload.JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(doc));
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    ReplaceFloor.forceDirectory(file.getParent());
    known = next;
  }

  @Override
  public void close() {}
}
