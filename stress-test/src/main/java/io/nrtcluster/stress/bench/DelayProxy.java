package io.nrtcluster.stress.bench;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A TCP relay on loopback that delays every byte by a fixed time in each direction (the kernel here
 * has no netem): what reaches it at t leaves at t + delay, in order, so a request/answer round trip
 * costs twice the delay. One reader and one writer thread per direction and connection; bench use only.
 */
final class DelayProxy implements Closeable {
  private final ServerSocket server;
  private final InetSocketAddress target;
  private final long delayNanos;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  private record Chunk(byte[] bytes, long dueNanos) {}

  DelayProxy(URI target, long delayMillis) throws IOException {
    this.target = new InetSocketAddress(target.getHost(), target.getPort());
    this.delayNanos = TimeUnit.MILLISECONDS.toNanos(delayMillis);
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("delay-proxy-accept").start(this::accept);
  }

  /** The relay's endpoint, with {@code target}'s scheme. */
  URI endpoint(URI like) {
    return URI.create(like.getScheme() + "://127.0.0.1:" + server.getLocalPort());
  }

  private void accept() {
    while (!closed) {
      try {
        Socket in = server.accept();
        Socket out = new Socket();
        out.connect(target, 5_000);
        in.setTcpNoDelay(true);
        out.setTcpNoDelay(true);
        sockets.add(in);
        sockets.add(out);
        pump(in, out);
        pump(out, in);
      } catch (IOException e) {
        if (!closed) {
          continue;
        }
        return;
      }
    }
  }

  private void pump(Socket from, Socket to) throws IOException {
    BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
    InputStream in = from.getInputStream();
    OutputStream out = to.getOutputStream();
    Thread.ofPlatform().daemon().name("delay-proxy-read").start(() -> {
      byte[] buf = new byte[64 << 10];
      try {
        for (int n; (n = in.read(buf)) >= 0; ) {
          queue.add(new Chunk(Arrays.copyOf(buf, n), System.nanoTime() + delayNanos));
        }
      } catch (IOException e) {
        // the connection ended
      }
      queue.add(new Chunk(null, System.nanoTime() + delayNanos));
    });
    Thread.ofPlatform().daemon().name("delay-proxy-write").start(() -> {
      try {
        while (true) {
          Chunk c = queue.take();
          long wait = c.dueNanos() - System.nanoTime();
          if (wait > 0) {
            LockSupport.parkNanos(wait); // the delay itself, not a wait for a condition
          }
          if (c.bytes() == null) {
            to.shutdownOutput();
            return;
          }
          out.write(c.bytes());
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        closeQuietly(from);
        closeQuietly(to);
      }
    });
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // closing
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    server.close();
    sockets.forEach(DelayProxy::closeQuietly);
  }
}
