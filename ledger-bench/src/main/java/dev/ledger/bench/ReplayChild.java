package dev.ledger.bench;

import dev.ledger.core.Cursor;
import dev.ledger.core.Event;
import dev.ledger.core.fs.FileLedgerStore;
import java.io.IOException;
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
 * {@code Ledger.replay}, then reads the same journal files raw, and prints one
 * {@code result ...} line. Run with a small heap to show replay memory is bounded.
 */
public final class ReplayChild {
  private ReplayChild() {}

  /** Arguments: store base, root id, journal directory. */
  public static void main(String[] args) throws IOException {
    Path base = Path.of(args[0]);
    String root = args[1];
    Path journal = Path.of(args[2]);
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
    long replayNanos = System.nanoTime() - t0;
    List<Path> segments;
    try (Stream<Path> list = Files.list(journal)) {
      segments = list.sorted().collect(Collectors.toList());
    }
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
    long rawNanos = System.nanoTime() - t1;
    System.out.println("result events=" + events + " replayNanos=" + replayNanos + " bytes="
        + bytes + " lines=" + lines + " rawNanos=" + rawNanos + " maxHeap="
        + Runtime.getRuntime().maxMemory());
  }
}
