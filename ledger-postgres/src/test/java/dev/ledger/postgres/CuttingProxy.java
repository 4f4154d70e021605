package dev.ledger.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A TCP proxy between the driver and the server that, once armed, cuts one connection at a
 * chosen point around the message that commits: the first client write that contains the
 * marker bytes given to {@link #arm}. Either {@linkplain Cut#BEFORE_COMMIT before the server
 * receives it} (nothing commits), or {@linkplain Cut#AFTER_COMMIT after the server answered
 * it} (the server committed, and its answer is thrown away). Either way the client sees a
 * broken connection while it waits for the answer.
 *
 * <p>The store commits with one statement in autocommit mode: PostgreSQL commits it at the
 * Sync message that ends the client's write, and only then flushes its answer, so the first
 * bytes back after that write mean the commit is done. With {@code prepareThreshold=0} in its
 * URL, the driver sends the statement's text every time (not a named statement prepared
 * once), so its text marks the message.
 */
final class CuttingProxy implements AutoCloseable {
  /** Where to cut. */
  enum Cut {
    BEFORE_COMMIT,
    AFTER_COMMIT
  }

  private final ServerSocket listening;
  private final int serverPort;
  private final List<Socket> sockets = new ArrayList<>();
  private final Thread acceptor;
  private volatile Cut armed;
  private volatile byte[] marker;
  private volatile CountDownLatch cutDone = new CountDownLatch(1);

  CuttingProxy(int serverPort) throws IOException {
    this.serverPort = serverPort;
    this.listening = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.acceptor = new Thread(this::accept, "cutting proxy");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listening.getLocalPort();
  }

  /** Cuts the next connection whose write contains {@code text}, at {@code cut}; disarms. */
  void arm(Cut cut, String text) {
    cutDone = new CountDownLatch(1);
    marker = text.getBytes(StandardCharsets.UTF_8);
    armed = cut;
  }

  /** Waits until the armed cut happened. */
  boolean awaitCut(long seconds) throws InterruptedException {
    return cutDone.await(seconds, TimeUnit.SECONDS);
  }

  private void accept() {
    while (!listening.isClosed()) {
      try {
        Socket client = listening.accept();
        Socket server = new Socket(InetAddress.getLoopbackAddress(), serverPort);
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        synchronized (sockets) {
          sockets.add(client);
          sockets.add(server);
        }
        Connection c = new Connection(client, server);
        start(c::clientToServer, "proxy client->server");
        start(c::serverToClient, "proxy server->client");
      } catch (IOException e) {
        // closed, or the server refused: the client sees its connection fail
      }
    }
  }

  private static void start(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  /** One proxied connection. */
  private final class Connection {
    private final Socket client;
    private final Socket server;
    /** Set once this connection's commit went through and its answer is to be dropped. */
    private volatile boolean dropAnswer;

    Connection(Socket client, Socket server) {
      this.client = client;
      this.server = server;
    }

    void clientToServer() {
      byte[] buffer = new byte[65536];
      try (InputStream in = client.getInputStream();
          OutputStream out = server.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) > 0) {
          Cut cut = armed;
          if (cut != null && contains(buffer, n, marker)) {
            armed = null;
            if (cut == Cut.BEFORE_COMMIT) {
              cutBoth();
              return;
            }
            dropAnswer = true;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        closeBoth();
      }
    }

    void serverToClient() {
      byte[] buffer = new byte[65536];
      try (InputStream in = server.getInputStream();
          OutputStream out = client.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) > 0) {
          if (dropAnswer) {
            // The server answered: it committed. The client never hears it.
            cutBoth();
            return;
          }
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        closeBoth();
      }
    }

    private void cutBoth() {
      closeBoth();
      cutDone.countDown();
    }

    private void closeBoth() {
      try {
        client.close();
      } catch (IOException e) {
        // already closed
      }
      try {
        server.close();
      } catch (IOException e) {
        // already closed
      }
    }
  }

  private static boolean contains(byte[] buffer, int length, byte[] word) {
    outer:
    for (int i = 0; i + word.length <= length; i++) {
      for (int j = 0; j < word.length; j++) {
        if (buffer[i + j] != word[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  @Override
  public void close() throws IOException {
    listening.close();
    synchronized (sockets) {
      for (Socket s : sockets) {
        s.close();
      }
    }
  }
}
