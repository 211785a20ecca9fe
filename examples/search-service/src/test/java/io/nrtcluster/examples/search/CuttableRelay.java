package io.nrtcluster.examples.search;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A plaintext TCP relay in front of one node's HTTP port whose link can be cut: once {@link #cut},
 * bytes arriving either way are read and dropped, new connections are accepted and never relayed,
 * and no close is passed on. That is what a partition that drops packets looks like to an HTTP
 * client: the request goes out and nothing ever comes back, until the client's own timeout. Once
 * {@link #refuse}d, it is a node whose port nothing listens on: open connections are reset and new
 * ones refused.
 */
final class CuttableRelay implements AutoCloseable {
  private final ServerSocket server;
  private final URI target;
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private volatile boolean cut;

  CuttableRelay(URI target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("relay-accept-" + target.getPort()).start(this::accept);
  }

  /** The URL to publish instead of the target's. */
  URI uri() {
    return URI.create("http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
  }

  /** Drops everything from now on, both ways, on every connection open or future. */
  void cut() {
    cut = true;
  }

  /** Resets every connection and refuses new ones from now on. */
  void refuse() throws IOException {
    cut = true;
    server.close();
    for (Socket s : sockets) {
      try {
        s.setSoLinger(true, 0);
      } catch (IOException e) {
        // Closed already.
      }
      closeQuietly(s);
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      Socket in;
      try {
        in = server.accept();
      } catch (IOException e) {
        return;
      }
      sockets.add(in);
      if (cut) {
        pumpLater(in, null);
        continue;
      }
      try {
        Socket out = new Socket(target.getHost(), target.getPort());
        sockets.add(out);
        pumpLater(in, out);
        pumpLater(out, in);
      } catch (IOException e) {
        closeQuietly(in);
      }
    }
  }

  private void pumpLater(Socket from, Socket to) {
    Thread.ofPlatform().daemon().name("relay-pump").start(() -> pump(from, to));
  }

  private void pump(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try {
      InputStream is = from.getInputStream();
      OutputStream os = to == null ? null : to.getOutputStream();
      int n;
      while ((n = is.read(buffer)) >= 0) {
        if (!cut && os != null) {
          os.write(buffer, 0, n);
          os.flush();
        }
      }
    } catch (IOException e) {
      // The relay or one of its ends closed.
    }
    // A cut link delivers no close either: the other end must not learn anything.
    if (!cut && to != null) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Closing anyway.
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    sockets.forEach(CuttableRelay::closeQuietly);
  }
}
