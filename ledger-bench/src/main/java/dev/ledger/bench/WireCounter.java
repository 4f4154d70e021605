package dev.ledger.bench;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.atomic.LongAdder;
import javax.net.SocketFactory;

/**
 * The sockets of PostgreSQL JDBC connections opened with {@code socketFactory} naming this
 * class, counted for the whole process: the writes to the socket (each a send) and their bytes,
 * the reads (each a receive) and their bytes, and the round trips, a round trip being the first read after one or more writes
 * on a socket (the client sent something and waits for the answer). The driver buffers a
 * message sequence and writes it when it syncs, so a statement sent with its parameters, or
 * two statements sent together, is one write and one round trip.
 *
 * <p>The counters cover every connection made through this factory, whatever thread uses it:
 * a pool's validation, a notifier's statements and a commit's all count. Public, with a
 * public no-argument constructor, because the driver instantiates it by name.
 */
public final class WireCounter extends SocketFactory {
  private static final LongAdder WRITES = new LongAdder();
  private static final LongAdder READS = new LongAdder();
  private static final LongAdder ROUND_TRIPS = new LongAdder();
  private static final LongAdder BYTES_WRITTEN = new LongAdder();
  private static final LongAdder BYTES_READ = new LongAdder();

  /** Instantiated by the driver. */
  public WireCounter() {}

  /** What the counters said at one moment. */
  record Snapshot(long writes, long reads, long roundTrips, long bytesWritten,
      long bytesRead) {
    /** The counts from {@code before} to this snapshot. */
    Snapshot minus(Snapshot before) {
      return new Snapshot(writes - before.writes, reads - before.reads,
          roundTrips - before.roundTrips, bytesWritten - before.bytesWritten,
          bytesRead - before.bytesRead);
    }
  }

  /** The counters now (each exact; taken one after the other, not atomically together). */
  static Snapshot snapshot() {
    return new Snapshot(WRITES.sum(), READS.sum(), ROUND_TRIPS.sum(), BYTES_WRITTEN.sum(),
        BYTES_READ.sum());
  }

  /** The URL parameter that makes the driver open its sockets through this class. */
  static String urlParameter() {
    return "socketFactory=" + WireCounter.class.getName();
  }

  @Override
  public Socket createSocket() {
    return new CountingSocket();
  }

  @Override
  public Socket createSocket(String host, int port) throws IOException {
    Socket s = new CountingSocket();
    s.connect(new java.net.InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(String host, int port, InetAddress localHost, int localPort)
      throws IOException {
    Socket s = new CountingSocket();
    s.bind(new java.net.InetSocketAddress(localHost, localPort));
    s.connect(new java.net.InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress host, int port) throws IOException {
    Socket s = new CountingSocket();
    s.connect(new java.net.InetSocketAddress(host, port));
    return s;
  }

  @Override
  public Socket createSocket(InetAddress address, int port, InetAddress localAddress,
      int localPort) throws IOException {
    Socket s = new CountingSocket();
    s.bind(new java.net.InetSocketAddress(localAddress, localPort));
    s.connect(new java.net.InetSocketAddress(address, port));
    return s;
  }

  /** A socket whose streams count; one connection's, used by one thread at a time. */
  private static final class CountingSocket extends Socket {
    /** Whether something was written since the last read: the next read ends a round trip. */
    private volatile boolean wrote;
    private InputStream counted;
    private OutputStream counting;

    @Override
    public synchronized InputStream getInputStream() throws IOException {
      if (counted == null) {
        counted = new Reads(super.getInputStream(), this);
      }
      return counted;
    }

    @Override
    public synchronized OutputStream getOutputStream() throws IOException {
      if (counting == null) {
        counting = new Writes(super.getOutputStream(), this);
      }
      return counting;
    }

    void sent(int bytes) {
      WRITES.increment();
      BYTES_WRITTEN.add(bytes);
      wrote = true;
    }

    void received(int bytes) {
      READS.increment();
      if (bytes > 0) {
        BYTES_READ.add(bytes);
      }
      if (wrote) {
        wrote = false;
        ROUND_TRIPS.increment();
      }
    }
  }

  /** A socket's input, each read counted. */
  private static final class Reads extends FilterInputStream {
    private final CountingSocket socket;

    Reads(InputStream in, CountingSocket socket) {
      super(in);
      this.socket = socket;
    }

    @Override
    public int read() throws IOException {
      int b = in.read();
      socket.received(b < 0 ? 0 : 1);
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = in.read(b, off, len);
      socket.received(n);
      return n;
    }
  }

  /** A socket's output, each write counted (not delegated byte by byte). */
  private static final class Writes extends FilterOutputStream {
    private final CountingSocket socket;

    Writes(OutputStream out, CountingSocket socket) {
      super(out);
      this.socket = socket;
    }

    @Override
    public void write(int b) throws IOException {
      socket.sent(1);
      out.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      socket.sent(len);
      out.write(b, off, len);
    }
  }
}
