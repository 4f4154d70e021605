package dev.ledger.artifacts.fs;

import dev.ledger.artifacts.GeneratedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;

/**
 * Run in a child JVM by {@link CrashTest}: starts putting a stream that, after its first
 * MiB, prints {@code streaming} and then blocks on stdin, so the parent can kill the process
 * in the middle of the put.
 *
 * <p>Arguments: {@code <base>}.
 */
public final class CrashChild {
  private CrashChild() {}

  /** Starts the put that never finishes; see the class comment. */
  public static void main(String[] args) {
    try (FileArtifactStore store = FileArtifactStore.open(Path.of(args[0]))) {
      store.blobs().put(new StallingStream());
    }
  }

  private static final class StallingStream extends InputStream {
    private final GeneratedInputStream bytes = new GeneratedInputStream(Long.MAX_VALUE, 5);
    private long handed;

    @Override
    public int read() throws IOException {
      byte[] one = new byte[1];
      return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      if (handed >= 1024 * 1024) {
        System.out.println("streaming");
        System.out.flush();
        System.in.read(); // blocks until killed
        throw new IOException("parent closed stdin instead of killing");
      }
      int n = bytes.read(buffer, offset, length);
      handed += n;
      return n;
    }
  }
}
