package dev.ledger.bench;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Child JVM of the replay measurement: streams every event of a ledger with
 * {@code Ledger.replay} twice (the first pass in this fresh JVM, the second once its code is
 * compiled), reads the same journal files raw, and prints one {@code result ...} line with
 * the wall and thread CPU time of each. Run with a small heap to show replay memory is
 * bounded. The raw read runs before or after the replays, as asked, so that neither always
 * reads the files right after the other.
 */
public final class ReplayChild {
  private ReplayChild() {}

  /** Arguments: store base, root id, journal directory, and "raw-first" or "replay-first". */
  public static void main(String[] args) throws IOException {
    Path base = Path.of(args[0]);
    String root = args[1];
    Path journal = Path.of(args[2]);
    boolean rawFirst = args.length > 3 && args[3].equals("raw-first");
    ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
    StringBuilder out = new StringBuilder("result");
    long[] raw = null;
    if (rawFirst) {
      raw = raw(journal, cpu);
    }
    long[] cold = replay(base, root, cpu);
    long[] warm = replay(base, root, cpu);
    if (!rawFirst) {
      raw = raw(journal, cpu);
    }
    out.append(" events=").append(cold[0]).append(" replayNanos=").append(cold[1])
        .append(" replayCpuNanos=").append(cold[2]).append(" warmReplayNanos=").append(warm[1])
        .append(" warmReplayCpuNanos=").append(warm[2]).append(" bytes=").append(raw[0])
        .append(" rawNanos=").append(raw[1]).append(" rawCpuNanos=").append(raw[2])
        .append(" maxHeap=").append(Runtime.getRuntime().maxMemory());
    System.out.println(out);
  }

  /** Events, wall nanos and this thread's CPU nanos of one full replay. */
  private static long[] replay(Path base, String root, ThreadMXBean cpu) {
    long c0 = cpu.getCurrentThreadCpuTime();
    long t0 = System.nanoTime();
    long events = 0;
    long last = 0;
    try (FileLedgerStore store = FileLedgerStore.openReadOnly(base);
        Stream<Event> all = store.ledger(root, Workload.BenchState.class).replay(Cursor.START)) {
      for (Event e : (Iterable<Event>) all::iterator) {
        events++;
        if (e.sequence() != last + 1) {
          throw new IllegalStateException("gap after " + last + ": " + e.sequence());
        }
        last = e.sequence();
      }
    }
    return new long[] {events, System.nanoTime() - t0, cpu.getCurrentThreadCpuTime() - c0};
  }

  /** Bytes, wall nanos and CPU nanos of reading every segment, counting newlines. */
  private static long[] raw(Path journal, ThreadMXBean cpu) throws IOException {
    List<Path> segments;
    try (Stream<Path> list = Files.list(journal)) {
      segments = list.sorted().collect(Collectors.toList());
    }
    long c0 = cpu.getCurrentThreadCpuTime();
    long t1 = System.nanoTime();
    long bytes = 0;
    long lines = 0;
    ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    byte[] chunk = new byte[64 * 1024];
    for (Path segment : segments) {
      try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.READ)) {
        int n;
        while ((n = ch.read(buffer.clear())) > 0) {
          buffer.flip().get(chunk, 0, n);
          for (int i = 0; i < n; i++) {
            if (chunk[i] == '\n') {
              lines++;
            }
          }
          bytes += n;
        }
      }
    }
    if (lines == 0) {
      throw new IllegalStateException("no journal lines in " + journal);
    }
    return new long[] {bytes, System.nanoTime() - t1, cpu.getCurrentThreadCpuTime() - c0};
  }
}
