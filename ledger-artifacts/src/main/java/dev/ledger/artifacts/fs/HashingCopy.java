package dev.ledger.artifacts.fs;

import dev.ledger.core.internal.io.SafeFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.security.MessageDigest;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Copies a stream into a file while hashing it, with the hashing and the writing on two
 * threads: the caller reads a chunk and hashes it, then hands it to a writer thread and goes
 * on with the next chunk while that one is written, so that hashing and writing overlap
 * instead of adding up. How much that saves depends on the disk (README, "Performance").
 *
 * <p>With {@code flushEvery} above zero, the writer also forces what it has written each
 * time that many more bytes are written, from a third thread, so that the device writes
 * while the caller still hashes: the caller's final {@code force} then waits for the last
 * part only, instead of for the whole file.
 *
 * <p>Memory is bounded: {@link #CHUNKS} buffers of {@link #CHUNK_BYTES} circulate between
 * the two threads. An input that fits in one chunk is written on the caller's thread, with
 * no second thread. A failure on either side (the input's read, a write) stops both; the
 * caller sees it, and the writer thread has ended before {@link #copy} returns or throws.
 */
final class HashingCopy {
  static final int CHUNK_BYTES = 256 * 1024;
  static final int CHUNKS = 4;

  private HashingCopy() {}

  /** A filled buffer for the writer; {@code length} -1 ends the copy. */
  private record Chunk(byte[] bytes, int length) {}

  private static final Chunk END = new Chunk(new byte[0], -1);

  /**
   * Copies {@code in} to {@code channel} from offset 0, updating {@code digest} with every
   * byte, in the order read.
   *
   * @return the number of bytes copied
   * @throws IOException from the input or the channel; InterruptedIOException if the caller
   *     was interrupted while waiting for the writer
   */
  static long copy(InputStream in, FileChannel channel, MessageDigest digest)
      throws IOException {
    return copy(in, channel, digest, 0);
  }

  /**
   * As {@link #copy(InputStream, FileChannel, MessageDigest)}, forcing the channel in the
   * background every {@code flushEvery} bytes written (0: never). A failed background force
   * fails the copy.
   */
  static long copy(InputStream in, FileChannel channel, MessageDigest digest, long flushEvery)
      throws IOException {
    byte[] first = new byte[CHUNK_BYTES];
    int n = in.readNBytes(first, 0, first.length);
    digest.update(first, 0, n);
    if (n < first.length) {
      SafeFiles.writeFully(channel, ByteBuffer.wrap(first, 0, n), 0);
      return n;
    }
    BlockingQueue<Chunk> full = new ArrayBlockingQueue<>(CHUNKS);
    BlockingQueue<byte[]> free = new ArrayBlockingQueue<>(CHUNKS);
    for (int i = 1; i < CHUNKS; i++) {
      free.add(new byte[CHUNK_BYTES]);
    }
    Writer writer = new Writer(channel, full, free, flushEvery);
    Thread thread = new Thread(writer, "ledger-blob-writer");
    thread.setDaemon(true);
    thread.start();
    long total = 0;
    boolean ended = false;
    try {
      byte[] buffer = first;
      while (true) {
        total += n;
        full.put(new Chunk(buffer, n));
        if (n < CHUNK_BYTES) {
          break;
        }
        buffer = free.take();
        writer.rethrow();
        n = in.readNBytes(buffer, 0, buffer.length);
        digest.update(buffer, 0, n);
      }
      full.put(END);
      ended = true;
      joinUninterruptibly(thread); // the last writes finish before the caller forces
      writer.rethrow();
      return total;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while storing a blob");
    } finally {
      if (!ended) {
        writer.stop();
        endUninterruptibly(full, thread);
        joinUninterruptibly(thread);
      }
    }
  }

  /** Queues the end marker; the writer drains the queue, so room appears while it lives. */
  private static void endUninterruptibly(BlockingQueue<Chunk> full, Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        if (full.offer(END, 10, TimeUnit.MILLISECONDS)) {
          break;
        }
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private static void joinUninterruptibly(Thread thread) {
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Writes chunks in order at consecutive offsets; returns each buffer once written. */
  private static final class Writer implements Runnable {
    private final FileChannel channel;
    private final BlockingQueue<Chunk> full;
    private final BlockingQueue<byte[]> free;
    private final long flushEvery;
    private volatile IOException failure;
    private volatile boolean stopped;
    /** Bytes written so far; the flusher forces up to here. */
    private long written;
    private Thread flusher;

    Writer(FileChannel channel, BlockingQueue<Chunk> full, BlockingQueue<byte[]> free,
        long flushEvery) {
      this.channel = channel;
      this.full = full;
      this.free = free;
      this.flushEvery = flushEvery;
    }

    @Override
    public void run() {
      try {
        write();
      } finally {
        synchronized (this) {
          stopped = true;
          notifyAll();
        }
        if (flusher != null) {
          joinUninterruptibly(flusher);
        }
      }
    }

    /** Forces the channel whenever {@code flushEvery} more bytes were written, until stopped. */
    private void flush() {
      long flushed = 0;
      while (true) {
        synchronized (this) {
          while (!stopped && written - flushed < flushEvery) {
            try {
              wait();
            } catch (InterruptedException e) {
              return;
            }
          }
          if (stopped) {
            return;
          }
          flushed = written;
        }
        try {
          channel.force(false);
        } catch (IOException e) {
          failure = e;
          return;
        }
      }
    }

    private void wrote(int bytes) {
      if (flushEvery <= 0) {
        return;
      }
      synchronized (this) {
        written += bytes;
        if (flusher == null) {
          flusher = new Thread(this::flush, "ledger-blob-flusher");
          flusher.setDaemon(true);
          flusher.start();
        }
        notifyAll();
      }
    }

    private void write() {
      long position = 0;
      try {
        while (true) {
          Chunk chunk = full.take();
          if (chunk.length() < 0) {
            return;
          }
          if (failure == null && !stopped) {
            try {
              SafeFiles.writeFully(channel, ByteBuffer.wrap(chunk.bytes(), 0, chunk.length()),
                  position);
              position += chunk.length();
              wrote(chunk.length());
            } catch (IOException e) {
              failure = e;
            }
          }
          // Always hand the buffer back, so that the reader never waits on a failed writer.
          free.offer(chunk.bytes());
        }
      } catch (InterruptedException e) {
        failure = new InterruptedIOException("blob writer interrupted");
      }
    }

    synchronized void stop() {
      stopped = true;
      notifyAll();
    }

    void rethrow() throws IOException {
      IOException e = failure;
      if (e != null) {
        throw e;
      }
    }
  }
}
