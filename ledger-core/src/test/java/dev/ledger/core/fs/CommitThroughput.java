package dev.ledger.core.fs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.io.SafeFiles;
import dev.ledger.core.internal.json.LedgerJson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Measures durable commits per second on one disk, to put the file ledger's cost next to the
 * disk's limits (not a unit test; run it by hand):
 *
 * <ol>
 *   <li><b>floor</b>: append a ~300-byte record to one file and {@code force(false)} it: the
 *       least a durable append-only commit can cost;
 *   <li><b>replace</b>: write a ~2 KiB file to a temp file, {@code force}, atomic move over
 *       the target, {@code force} the directory: what rewriting the state each commit costs;
 *   <li><b>ledger</b>: {@link FileLedgerStore} with default options (SYNC) committing a
 *       ~2 KiB state with one ~200-byte event.
 * </ol>
 * The modes take turns, round by round, so that a disk's slow moment hits them alike; one
 * uncounted warm-up round runs first. Prints each round and the median, min and max
 * commits/s of each mode, and the ratios ledger/floor and ledger/replace of the medians.
 *
 * <p>Arguments (all optional): directory to measure in (default: a new temp directory,
 * deleted afterwards), rounds (5), seconds per round (2).
 */
public final class CommitThroughput {
  private static final int RECORD_BYTES = 300;
  private static final int STATE_BYTES = 2048;
  private static final int EVENT_BYTES = 200;

  private CommitThroughput() {}

  /** One way of committing; {@link #commit} makes one durable commit. */
  private interface Mode extends AutoCloseable {
    void commit(long n) throws IOException;

    @Override
    void close() throws IOException;
  }

  public static void main(String[] args) throws Exception {
    boolean ownDir = args.length < 1;
    Path dir = ownDir ? Files.createTempDirectory("commit-throughput")
        : Files.createDirectories(Path.of(args[0]));
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    double seconds = args.length > 2 ? Double.parseDouble(args[2]) : 2;
    List<String> names = List.of(
        "floor:   append " + RECORD_BYTES + " B + force(false)",
        "replace: temp " + STATE_BYTES + " B + force + move + dir force",
        "ledger:  FileLedgerStore SYNC, " + LedgerJson.canonical(initialState()).length
            + " B state + ~" + EVENT_BYTES + " B event");
    System.out.printf("Measuring in %s (%s), %d rounds of %.1f s per mode, after a warm-up%n",
        dir.toAbsolutePath(), Files.getFileStore(dir).type(), rounds, seconds);
    double[][] rates = new double[names.size()][rounds];
    try {
      for (int round = 0; round <= rounds; round++) {
        for (int m = 0; m < names.size(); m++) {
          Path roundDir = Files.createDirectories(dir.resolve("m" + m + "-r" + round));
          double rate;
          try (Mode mode = open(m, roundDir)) {
            rate = measure(mode, round == 0 ? Math.min(1, seconds) : seconds);
          }
          deleteTree(roundDir);
          if (round == 0) {
            System.out.printf("warm-up  %-60s %8.0f commits/s%n", names.get(m), rate);
          } else {
            rates[m][round - 1] = rate;
            System.out.printf("round %d  %-60s %8.0f commits/s%n", round, names.get(m), rate);
          }
        }
      }
    } finally {
      if (ownDir) {
        deleteTree(dir);
      }
    }
    System.out.printf("%n%-60s %8s %8s %8s%n", "commits/s", "median", "min", "max");
    double[] medians = new double[names.size()];
    for (int m = 0; m < names.size(); m++) {
      double[] sorted = rates[m].clone();
      Arrays.sort(sorted);
      medians[m] = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
          : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
      System.out.printf("%-60s %8.0f %8.0f %8.0f%n", names.get(m), medians[m], sorted[0],
          sorted[sorted.length - 1]);
    }
    System.out.printf("%nledger/floor   = %.2f%nledger/replace = %.2f%n",
        medians[2] / medians[0], medians[2] / medians[1]);
  }

  private static double measure(Mode mode, double seconds) throws IOException {
    long deadline = System.nanoTime() + (long) (seconds * 1e9);
    long started = System.nanoTime();
    long n = 0;
    long now;
    do {
      mode.commit(++n);
      now = System.nanoTime();
    } while (now < deadline);
    return n / ((now - started) / 1e9);
  }

  private static Mode open(int mode, Path dir) throws IOException {
    switch (mode) {
      case 0:
        return appendAndForce(dir);
      case 1:
        return replaceAndForce(dir);
      default:
        return ledger(dir);
    }
  }

  private static Mode appendAndForce(Path dir) throws IOException {
    FileChannel channel = FileChannel.open(dir.resolve("journal.jsonl"),
        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    return new Mode() {
      private long end;

      @Override
      public void commit(long n) throws IOException {
        byte[] record = padded("{\"n\":" + n + ",\"pad\":\"", RECORD_BYTES - 1);
        record[record.length - 1] = '\n';
        SafeFiles.writeFully(channel, ByteBuffer.wrap(record), end);
        channel.force(false);
        end += record.length;
      }

      @Override
      public void close() throws IOException {
        channel.close();
      }
    };
  }

  private static Mode replaceAndForce(Path dir) {
    Path target = dir.resolve("state.json");
    Path temp = dir.resolve(".state.json.tmp");
    return new Mode() {
      @Override
      public void commit(long n) throws IOException {
        byte[] content = padded("{\"n\":" + n + ",\"pad\":\"", STATE_BYTES);
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
          SafeFiles.writeFully(channel, ByteBuffer.wrap(content), 0);
          channel.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE,
            StandardCopyOption.REPLACE_EXISTING);
        SafeFiles.forceDirectory(dir);
      }

      @Override
      public void close() {}
    };
  }

  private static Mode ledger(Path dir) {
    FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"), LedgerOptions.defaults());
    Ledger<JsonNode> ledger = store.ledger("throughput", JsonNode.class);
    ObjectNode state = initialState();
    String eventPad = "e".repeat(EVENT_BYTES - 40);
    return new Mode() {
      private long revision = Ledger.NO_REVISION;

      @Override
      public void commit(long n) {
        // One task changes per commit, as in an orchestrator's state.
        ObjectNode task = (ObjectNode) state.get("tasks").get("task-" + (n % 16));
        task.put("attempt", task.get("attempt").asLong() + 1);
        task.put("status", n % 2 == 0 ? "running" : "waiting");
        revision = ledger.commit(revision, state,
            EventDraft.of("task.changed", Map.of("n", n, "pad", eventPad))).revision();
      }

      @Override
      public void close() {
        store.close();
      }
    };
  }

  /** A state of about {@link #STATE_BYTES}: sixteen tasks with a status and an attempt. */
  private static ObjectNode initialState() {
    ObjectNode state = JsonNodeFactory.instance.objectNode();
    state.put("name", "throughput");
    ObjectNode tasks = state.putObject("tasks");
    for (int i = 0; i < 16; i++) {
      ObjectNode task = tasks.putObject("task-" + i);
      task.put("attempt", 0);
      task.put("status", "waiting");
      task.put("command", "run step " + i + " of the throughput plan " + "x".repeat(48));
    }
    return state;
  }

  private static byte[] padded(String prefix, int length) {
    StringBuilder text = new StringBuilder(prefix);
    while (text.length() < length - 2) {
      text.append('x');
    }
    text.append("\"}");
    return text.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}
