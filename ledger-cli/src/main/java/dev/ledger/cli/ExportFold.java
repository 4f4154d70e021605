package dev.ledger.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.LedgerException;
import dev.ledger.core.LedgerStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The state of a past revision, folded from the ledger's export ({@link LedgerStore#export}),
 * the public way to read a ledger's whole journal with its states: the export's commit lines
 * are the journal's records, each with either the whole new {@code state} or a JSON merge
 * {@code patch} (RFC 7386) against the previous revision's state. The export is streamed
 * through a pipe from a second thread and read only up to the revision asked for.
 */
final class ExportFold {
  private ExportFold() {}

  /**
   * A state folded up to a revision.
   *
   * @param revision the revision
   * @param committedAt its commit time
   * @param stateVersion the state version it was written with
   * @param state the state tree, as stored (not upcast)
   */
  record Folded(long revision, Instant committedAt, int stateVersion, JsonNode state) {}

  /**
   * Folds the journal of {@code root} up to {@code revision}.
   *
   * @param store the store
   * @param root the ledger
   * @param revision the revision to stop at, at least 1
   * @return the state at that revision
   */
  static Folded fold(LedgerStore store, String root, long revision) {
    AtomicReference<RuntimeException> exportFailure = new AtomicReference<>();
    AtomicBoolean readerDone = new AtomicBoolean();
    try (PipedInputStream in = new PipedInputStream(1 << 16)) {
      PipedOutputStream pipe = new PipedOutputStream(in);
      Thread exporter = new Thread(() -> {
        try (pipe) {
          store.export(root, pipe);
        } catch (LedgerException e) {
          if (!readerDone.get()) {
            exportFailure.set(e); // once the reader has its revision, it closes the pipe
          }
        } catch (IOException | RuntimeException e) {
          exportFailure.compareAndSet(null, e instanceof RuntimeException r ? r
              : new UncheckedIOException((IOException) e));
        }
      }, "ledger-export-" + root);
      exporter.setDaemon(true);
      exporter.start();
      BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      JsonNode state = null;
      String line;
      while ((line = lines.readLine()) != null) {
        JsonNode commit = Json.MAPPER.readTree(line).get("commit");
        if (commit == null) {
          continue; // the header
        }
        long at = commit.path("revision").asLong();
        state = commit.has("patch") ? mergePatch(state, commit.get("patch")) // ours to change
            : commit.get("state");
        if (at == revision) {
          readerDone.set(true);
          return new Folded(at, Instant.parse(commit.path("committedAt").asText()),
              commit.path("stateVersion").asInt(0), state);
        }
      }
      awaitQuietly(exporter);
      if (exportFailure.get() != null) {
        throw exportFailure.get();
      }
      throw new Failures.DataException("the export of ledger '" + root + "' ended before "
          + "revision " + revision);
    } catch (IOException e) {
      throw new UncheckedIOException("reading the export of ledger '" + root + "'", e);
    }
  }

  /**
   * RFC 7386: applies {@code patch} to {@code target}, changing {@code target} in place when
   * it is an object (the fold owns every tree it parsed), and returns the result.
   */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (patch == null || !patch.isObject()) {
      return patch == null ? target : patch;
    }
    ObjectNode result = target != null && target.isObject() ? (ObjectNode) target
        : Json.MAPPER.createObjectNode();
    for (Map.Entry<String, JsonNode> field : patch.properties()) {
      if (field.getValue().isNull()) {
        result.remove(field.getKey());
      } else {
        result.set(field.getKey(), mergePatch(result.get(field.getKey()), field.getValue()));
      }
    }
    return result;
  }

  private static void awaitQuietly(Thread thread) {
    try {
      thread.join(60_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
