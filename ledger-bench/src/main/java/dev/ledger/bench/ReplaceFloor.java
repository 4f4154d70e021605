package dev.ledger.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * The replace floor: write the ~2 KiB state and the event to a temp file, force it, move it
 * over the target atomically and force the directory, per commit.
 */
final class ReplaceFloor implements CommitTarget {
  private final Path target;
  private final Path temp;
  private long counter;

  ReplaceFloor(Path target) throws IOException {
    Files.createDirectories(target.getParent());
    this.target = target;
    this.temp = target.resolveSibling(target.getFileName() + ".tmp");
  }

  @Override
  public void commit() throws IOException {
    counter++;
    byte[] state = Workload.stateJson(counter);
    byte[] event = Workload.eventJson(counter);
    writeForced(temp, state, event);
    Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
    forceDirectory(target.getParent());
  }

  static void writeForced(Path file, byte[]... parts) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
      for (byte[] part : parts) {
        ByteBuffer b = ByteBuffer.wrap(part);
        while (b.hasRemaining()) {
          ch.write(b);
        }
      }
      ch.force(true);
    }
  }

  static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  @Override
  public void close() {}
}
