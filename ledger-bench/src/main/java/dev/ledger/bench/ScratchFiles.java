package dev.ledger.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Directory sizes and removal for the harness's scratch directories. */
final class ScratchFiles {
  private ScratchFiles() {}

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.delete(p);
      }
    }
  }

  /** Total bytes of the regular files under {@code dir} (0 if absent). */
  static long size(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return 0;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      long total = 0;
      for (Path p : (Iterable<Path>) walk::iterator) {
        if (Files.isRegularFile(p)) {
          total += Files.size(p);
        }
      }
      return total;
    }
  }

  /** This process's bytes sent to storage so far ({@code write_bytes}), or -1 if unknown. */
  static long processWriteBytes() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/io"))) {
        if (line.startsWith("write_bytes:")) {
          return Long.parseLong(line.substring("write_bytes:".length()).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
