package dev.ledger.artifacts.fs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.ledger.testing.base.SeedExtension;
import dev.ledger.testing.base.TestSeed;
import dev.ledger.testing.fault.FaultyFileSystem;
import dev.ledger.testing.fault.Op;
import dev.ledger.testing.fault.Persistence;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The two-thread hashing copy: exact bytes and digest, and no writer left behind. */
@ExtendWith(SeedExtension.class)
class HashingCopyTest {
  private static final int CHUNK = HashingCopy.CHUNK_BYTES;

  @TempDir
  Path dir;

  /** Joins every blob writer thread, within one deadline for all: none may outlive a copy. */
  @AfterEach
  void noWriterThreadLeft() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
    for (Thread writer : writers()) {
      long left = deadline - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.timedJoin(writer, left);
      }
    }
    assertThat(writers()).as("blob writer threads still running").isEmpty();
  }

  private static List<Thread> writers() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> t.getName().startsWith("ledger-blob-") && t.isAlive()).toList();
  }

  @ParameterizedTest(name = "{0} bytes")
  @ValueSource(ints = {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17, 9 * CHUNK})
  void copiesEveryByteInOrderAndHashesThem(int size, TestSeed seed) throws Exception {
    byte[] bytes = new byte[size];
    seed.random().nextBytes(bytes);
    Path file = dir.resolve("copy");
    MessageDigest digest = Sha256.newDigest();
    long copied;
    // A source that returns short reads, as sockets and pipes do.
    try (InputStream in = new ShortReads(new ByteArrayInputStream(bytes), 7919);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE)) {
      copied = HashingCopy.copy(in, channel, digest);
    }
    assertThat(copied).as("%s", seed).isEqualTo(size);
    assertThat(Files.readAllBytes(file)).as("%s", seed).isEqualTo(bytes);
    assertThat(digest.digest()).as("%s", seed)
        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  @ParameterizedTest(name = "a background force every {0} bytes")
  @ValueSource(ints = {1, CHUNK, 3 * CHUNK})
  void backgroundForcesChangeNoByte(int flushEvery, TestSeed seed) throws Exception {
    byte[] bytes = new byte[11 * CHUNK + 3];
    seed.random().nextBytes(bytes);
    FaultyFileSystem fs = FaultyFileSystem.over(dir);
    Path file = fs.root().resolve("copy");
    MessageDigest digest = Sha256.newDigest();
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      assertThat(HashingCopy.copy(new ByteArrayInputStream(bytes), channel, digest,
          flushEvery)).isEqualTo(bytes.length);
    }
    assertThat(Files.readAllBytes(dir.resolve("copy"))).as("%s", seed).isEqualTo(bytes);
    assertThat(digest.digest()).isEqualTo(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  @Test
  void aFailingBackgroundForceFailsTheCopy() throws IOException {
    FaultyFileSystem fs = FaultyFileSystem.over(dir);
    Path file = fs.root().resolve("copy");
    byte[] bytes = new byte[40 * CHUNK];
    try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      fs.failAt(Op.FORCE, 1, Persistence.PERSISTENT);
      assertThatThrownBy(() -> HashingCopy.copy(new ByteArrayInputStream(bytes), channel,
          Sha256.newDigest(), CHUNK)).isInstanceOf(IOException.class);
    }
    assertThat(fs.injected()).isPositive();
  }

  @Test
  void aFailingSourceStopsTheWriterAndReachesTheCaller() throws IOException {
    byte[] bytes = new byte[5 * CHUNK];
    for (RuntimeException thrown : new RuntimeException[] {null, new IllegalStateException("x")}) {
      Path file = Files.createTempFile(dir, "copy", "");
      InputStream failing = new InputStream() {
        private final InputStream in = new ByteArrayInputStream(bytes);
        private long served;

        @Override
        public int read() {
          throw new UnsupportedOperationException();
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
          if (served >= 2L * CHUNK + 100) {
            if (thrown != null) {
              throw thrown;
            }
            throw new IOException("source broke");
          }
          int n = in.read(b, off, Math.min(len, 1000));
          served += n;
          return n;
        }
      };
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        assertThatThrownBy(() -> HashingCopy.copy(failing, channel, Sha256.newDigest()))
            .hasMessageContaining(thrown == null ? "source broke" : "x");
      }
    }
  }

  @Test
  void aFailingWriteReachesTheCaller() throws IOException {
    for (int nth = 1; nth <= 4; nth++) {
      FaultyFileSystem fs = FaultyFileSystem.over(Files.createDirectories(dir.resolve("w" + nth)));
      Path file = fs.root().resolve("copy");
      byte[] bytes = new byte[6 * CHUNK + 5];
      Arrays.fill(bytes, (byte) 7);
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE)) {
        fs.failAt(Op.WRITE, nth, Persistence.TRANSIENT);
        assertThatThrownBy(() -> HashingCopy.copy(new ByteArrayInputStream(bytes), channel,
            Sha256.newDigest())).as("write #%s fails", nth).isInstanceOf(IOException.class);
      }
      assertThat(fs.injected()).isEqualTo(1);
    }
  }

  @Test
  void anInterruptedCallerGetsAnInterruptedIoException() throws Exception {
    CountDownLatch reading = new CountDownLatch(1);
    AtomicReference<Throwable> outcome = new AtomicReference<>();
    // A source that never ends: the copy waits on the writer for free buffers.
    InputStream endless = new InputStream() {
      @Override
      public int read() {
        return 1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        reading.countDown();
        Arrays.fill(b, off, off + len, (byte) 1);
        return len;
      }
    };
    Path file = dir.resolve("endless");
    Thread caller = new Thread(() -> {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
          StandardOpenOption.WRITE)) {
        HashingCopy.copy(endless, channel, Sha256.newDigest());
      } catch (Throwable t) {
        outcome.set(t);
      }
    });
    caller.start();
    reading.await();
    caller.interrupt();
    caller.join(10_000);
    assertThat(caller.isAlive()).isFalse();
    assertThat(outcome.get()).isInstanceOf(InterruptedIOException.class);
  }

  /** Returns at most {@code max} bytes per read. */
  private static final class ShortReads extends InputStream {
    private final InputStream in;
    private final int max;

    ShortReads(InputStream in, int max) {
      this.in = in;
      this.max = max;
    }

    @Override
    public int read() throws IOException {
      return in.read();
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return in.read(b, off, Math.min(len, max));
    }
  }
}
