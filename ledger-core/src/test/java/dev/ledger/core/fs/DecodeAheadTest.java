package dev.ledger.core.fs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.ledger.core.EventDraft;
import dev.ledger.core.Ledger;
import dev.ledger.core.LedgerOptions;
import dev.ledger.core.internal.journal.CommitRecord;
import dev.ledger.core.internal.journal.JournalLine;
import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.FutureTask;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * Decoding ahead hands the verifier exactly what reading and decoding line by line on its own
 * thread gives: the same lines in order, the same records or the same failures (type and
 * message), and the same positions, also around damage, padding and a torn tail.
 */
@ExtendWith(SeedExtension.class)
class DecodeAheadTest {
  private static final int MAX_LINE = 1 << 20;
  private static final DecodeAhead.Decoder DECODER = JournalLine::decodeWithoutPayloads;

  @TempDir
  Path dir;

  record Counter(int value, String text) {}

  static List<DecodeAhead.Ahead> aheads() {
    // As verify and replay read, nothing ahead, and a byte bound smaller than any line.
    return List.of(DecodeAhead.VERIFY, DecodeAhead.REPLAY, DecodeAhead.NONE,
        new DecodeAhead.Ahead(3, 1));
  }

  /** A segment of {@code commits} records with varied sizes, as the store writes them. */
  private Path segment(Random random, int commits) {
    try (FileLedgerStore store = FileLedgerStore.open(dir.resolve("store"),
        LedgerOptions.defaults().withCheckpointInterval(100_000))) {
      Ledger<Counter> ledger = store.ledger("root-1", Counter.class);
      for (int r = 1; r <= commits; r++) {
        List<EventDraft> events = new ArrayList<>();
        int n = random.nextInt(4);
        for (int e = 0; e < n; e++) {
          events.add(EventDraft.of("tick", Map.of("at", r, "pad",
              "x".repeat(random.nextInt(3000)))));
        }
        ledger.commit(r - 1, new Counter(r, "y".repeat(random.nextInt(200))), events);
      }
    }
    return dir.resolve("store/ledgers/root-1/journal/00000000000000000001.jsonl");
  }

  /** What a verifier sees of one line: position after it, kind, and record or failure. */
  private static String seen(LineReader.Line line, long position, Object decoded) {
    return line.offset() + "+" + line.length() + " " + line.kind() + " -> " + position + ": "
        + decoded;
  }

  private static Object decodedInline(LineReader.Line line) {
    try {
      return describe(JournalLine.decodeWithoutPayloads(line.bytes(), line.length()));
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  private static Object decodedAhead(DecodeAhead.Item item) {
    try {
      return describe(item.record());
    } catch (RuntimeException e) {
      return e.getClass().getName() + ": " + e.getMessage();
    }
  }

  private static String describe(CommitRecord r) {
    return r.revision() + "/" + r.firstSequence() + "/" + r.events().size() + "/" + r.state();
  }

  /** One way of reading a segment's lines, as a verifier or a scan does. */
  private interface Walker extends AutoCloseable {
    LineReader.Line next() throws IOException;

    /** The record of the line {@link #next} gave, or its failure. */
    Object decoded();

    long position();

    boolean skipZeros() throws IOException;

    @Override
    void close() throws IOException;
  }

  /** Line by line on this thread, as the verifier did before decoding ahead. */
  private static List<String> inline(Path file) throws IOException {
    LineReader reader = new LineReader(file, 0, MAX_LINE);
    return walk(new Walker() {
      private LineReader.Line line;

      @Override
      public LineReader.Line next() throws IOException {
        line = reader.next();
        return line;
      }

      @Override
      public Object decoded() {
        return decodedInline(line);
      }

      @Override
      public long position() {
        return reader.position();
      }

      @Override
      public boolean skipZeros() throws IOException {
        return reader.skipZeros();
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    });
  }

  private static List<String> ahead(Path file, DecodeAhead reader) throws IOException {
    return walk(new Walker() {
      private DecodeAhead.Item item;

      @Override
      public LineReader.Line next() throws IOException {
        item = reader.next();
        return item == null ? null : item.line;
      }

      @Override
      public Object decoded() {
        return decodedAhead(item);
      }

      @Override
      public long position() {
        return reader.position();
      }

      @Override
      public boolean skipZeros() throws IOException {
        return reader.skipZeros();
      }

      @Override
      public void close() throws IOException {
        reader.close();
      }
    });
  }

  private static List<String> walk(Walker walker) throws IOException {
    List<String> out = new ArrayList<>();
    try (walker) {
      while (true) {
        LineReader.Line line = walker.next();
        if (line == null) {
          out.add("end at " + walker.position());
          return out;
        }
        Object decoded = line.kind() == LineReader.Kind.COMPLETE ? walker.decoded() : "-";
        out.add(seen(line, walker.position(), decoded));
        if (line.kind() == LineReader.Kind.PADDING && !walker.skipZeros()) {
          out.add("zeros to the end");
          return out;
        }
        if (line.kind() == LineReader.Kind.PADDING) {
          out.add("data again at " + walker.position());
        }
      }
    }
  }

  private static LineReader lines(Path file) throws IOException {
    return new LineReader(file, 0, MAX_LINE);
  }

  private static void damage(Path file, long at, byte[] bytes) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(bytes), at);
    }
  }

  private static List<Long> lineStarts(Path file) throws IOException {
    byte[] all = Files.readAllBytes(file);
    List<Long> starts = new ArrayList<>();
    starts.add(0L);
    for (int i = 0; i < all.length - 1; i++) {
      if (all[i] == '\n') {
        starts.add((long) i + 1);
      }
    }
    return starts;
  }

  @ParameterizedTest
  @MethodSource("aheads")
  void sameLinesRecordsFailuresAndPositionsAsInline(DecodeAhead.Ahead ahead, TestSeed seed)
      throws Exception {
    Random random = seed.random();
    Path file = segment(random, 300);
    List<Long> starts = lineStarts(file);
    // A flipped byte inside a record (a checksum failure), a record's bytes replaced by
    // zeros in the middle (a cut line, padding, then data again), and a torn last line.
    long flip = starts.get(40 + random.nextInt(40)) + 30;
    damage(file, flip, new byte[] {'#'});
    long zeros = starts.get(150 + random.nextInt(40)) + 5;
    damage(file, zeros, new byte[64]);
    long size = Files.size(file);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.truncate(size - 1 - random.nextInt(40));
    }
    List<String> expected = inline(file);
    assertThat(expected).as("the damage shows (%s)", seed)
        .anyMatch(s -> s.contains("checksum mismatch"))
        .anyMatch(s -> s.contains("ZERO_CUT"))
        .anyMatch(s -> s.contains("PADDING"))
        .anyMatch(s -> s.contains("INCOMPLETE"));
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      assertThat(ahead(file, new DecodeAhead(lines(file), DECODER, ahead, pool)))
          .as("decoded on a pool (%s)", seed).isEqualTo(expected);
    } finally {
      pool.shutdownNow();
    }
    assertThat(ahead(file, new DecodeAhead(lines(file), DECODER, ahead, Runnable::run)))
        .as("decoded at once (%s)", seed).isEqualTo(expected);
    assertThat(ahead(file, new DecodeAhead(lines(file), DECODER, ahead, task -> { })))
        .as("never decoded elsewhere: the verifier decodes each (%s)", seed)
        .isEqualTo(expected);
    assertThat(ahead(file, new DecodeAhead(lines(file), DECODER, ahead)))
        .as("the common pool (%s)", seed).isEqualTo(expected);
  }

  @Test
  void closingCancelsTheDecodingsNotTakenYet(TestSeed seed) throws Exception {
    Path file = segment(seed.random(), 100);
    List<Runnable> submitted = new ArrayList<>();
    DecodeAhead reader = new DecodeAhead(lines(file), DECODER, DecodeAhead.VERIFY,
        submitted::add);
    DecodeAhead.Item first = reader.next();
    assertThat(first.record().revision()).isEqualTo(1);
    assertThat(submitted).hasSizeBetween(1, DecodeAhead.VERIFY.lines());
    long position = reader.position();
    reader.close();
    assertThat(position).isEqualTo(first.line.length() + 1L);
    // Decodings handed to the executor and not taken yet: a late run of one does nothing.
    assertThat(submitted).allMatch(task -> ((FutureTask<?>) task).isCancelled());
  }
}
