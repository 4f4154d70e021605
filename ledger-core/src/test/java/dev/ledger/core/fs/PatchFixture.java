package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.internal.command.CommandDigests;
import dev.ledger.core.spi.CommitRequest;
import dev.ledger.core.spi.PatchRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Patch commits that are functions of their revision, for the patch log tests: the patch of
 * revision r, the state after it (built directly, not by folding patches), its events and its
 * command. Numbers are ints, as JSON reads them back. Revision r sets key {@code k<r % 5>}, sets {@code last}, and removes {@code tmp}
 * when r is a multiple of 3 (sets it otherwise).
 */
final class PatchFixture {
  static final String ROOT = "patched";
  private static final String PAD = "0123456789abcdef".repeat(4);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private PatchFixture() {}

  static ObjectNode patch(long r) {
    ObjectNode patch = NODES.objectNode();
    patch.set("k" + (r % 5), value(r));
    patch.put("last", (int) r);
    if (r % 3 == 0) {
      patch.putNull("tmp");
    } else {
      patch.put("tmp", (int) r);
    }
    return patch;
  }

  /** The state after revision {@code r} (r at least 1). */
  static ObjectNode state(long r) {
    ObjectNode state = NODES.objectNode();
    for (int key = 0; key < 5; key++) {
      long latest = r - Math.floorMod(r - key, 5);
      if (latest >= 1) {
        state.set("k" + key, value(latest));
      }
    }
    state.put("last", (int) r);
    if (r % 3 != 0) {
      state.put("tmp", (int) r);
    }
    return state;
  }

  private static JsonNode value(long r) {
    ObjectNode value = NODES.objectNode();
    value.put("r", (int) r);
    value.put("pad", PAD);
    return value;
  }

  static String commandId(long r) {
    return "patch-" + r;
  }

  static List<EventDraft> drafts(long r) {
    return List.of(EventDraft.of("patched", Map.of("revision", (int) r)).withCommandId(commandId(r)));
  }

  /** The request that commits revision {@code r} on top of {@code r - 1}. */
  static PatchRequest request(long r) {
    List<EventDraft> drafts = drafts(r);
    return new PatchRequest(r - 1, patch(r), 0, drafts,
        CommitRequest.publicCommandId(commandId(r)), CommandDigests.intent(drafts));
  }

  /** The requests of revisions {@code from} to {@code to}, inclusive. */
  static List<PatchRequest> requests(long from, long to) {
    List<PatchRequest> batch = new ArrayList<>();
    for (long r = from; r <= to; r++) {
      batch.add(request(r));
    }
    return batch;
  }
}
