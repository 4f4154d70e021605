package dev.ledger.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A reference for the unforced commit's cold start, not a store: per commit, Jackson encodes
 * the ledger's 2 KiB state and event of the same counter as one JSON line and appends it to a
 * file, without force, revision check, patch or checksum. What any JVM program that writes
 * its state as JSON pays; its cold / warm ratio (a fresh JVM's first commits against the
 * compiled loop) shows how much of the ledger's cold start is the JVM's warm-up of Jackson
 * and file I/O rather than the ledger's own code. The file wraps to its start at
 * {@value #WRAP_BYTES} bytes, so that the warm turns (hundreds of thousands of lines) do not
 * fill the disk.
 */
final class JsonAppendTarget implements CommitTarget {
  private static final long WRAP_BYTES = 32L << 20;
  private final FileChannel channel;
  private long counter;
  private long end;

  JsonAppendTarget(Path file) throws IOException {
    Files.createDirectories(file.getParent());
    channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    end = channel.size();
  }

  @Override
  public void commit() throws IOException {
    counter++;
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("revision", counter);
    line.put("state", Workload.state(counter));
    line.put("event", Workload.eventPayload(counter));
    byte[] bytes = Workload.JSON.writeValueAsBytes(line);
    ByteBuffer buffer = ByteBuffer.allocate(bytes.length + 1).put(bytes).put((byte) '\n');
    buffer.flip();
    if (end + buffer.remaining() > WRAP_BYTES) {
      end = 0;
    }
    while (buffer.hasRemaining()) {
      end += channel.write(buffer, end);
    }
  }

  @Override
  public void close() throws IOException {
    channel.close();
  }
}
