package io.nrtcluster.replica;

import io.nrtcluster.transport.NodeAddress;
import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A plaintext TCP relay between a replica and its primary that records the type of every frame
 * each way, with the time it passed: what went over the wire, seen from outside both nodes.
 */
final class WireTap implements Closeable {
  /** One frame that passed: {@code toPrimary} when the replica sent it. */
  record Frame(long nanos, boolean toPrimary, int type) {}

  private final ServerSocket server;
  private final NodeAddress target;
  private final List<Frame> frames = new CopyOnWriteArrayList<>();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  WireTap(NodeAddress target) throws IOException {
    this.target = target;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("wiretap-accept").start(this::accept);
  }

  NodeAddress address() {
    return new NodeAddress("127.0.0.1", server.getLocalPort());
  }

  List<Frame> frames() {
    return new ArrayList<>(frames);
  }

  private void accept() {
    while (!closed) {
      try {
        Socket in = server.accept();
        Socket out = new Socket(target.host(), target.port());
        in.setTcpNoDelay(true);
        out.setTcpNoDelay(true);
        sockets.add(in);
        sockets.add(out);
        Thread.ofPlatform().daemon().name("wiretap-up").start(() -> relay(in, out, true));
        Thread.ofPlatform().daemon().name("wiretap-down").start(() -> relay(out, in, false));
      } catch (IOException e) {
        return;
      }
    }
  }

  /** Copies whole frames from {@code from} to {@code to}, recording each frame's type. */
  private void relay(Socket from, Socket to, boolean toPrimary) {
    try (DataInputStream in = new DataInputStream(from.getInputStream()); OutputStream out = to.getOutputStream()) {
      byte[] buf = new byte[64 * 1024];
      while (true) {
        int length = in.readInt();
        int type = in.readUnsignedByte();
        frames.add(new Frame(System.nanoTime(), toPrimary, type));
        out.write(new byte[] {(byte) (length >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length,
            (byte) type});
        copy(in, out, length - 1, buf);
        out.flush();
      }
    } catch (EOFException e) {
      // The peer closed: close the other side too.
    } catch (IOException e) {
      // Either side went away.
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void copy(InputStream in, OutputStream out, int n, byte[] buf) throws IOException {
    while (n > 0) {
      int r = in.read(buf, 0, Math.min(n, buf.length));
      if (r < 0) {
        throw new EOFException();
      }
      out.write(buf, 0, r);
      n -= r;
    }
  }

  private static void closeQuietly(Closeable c) {
    try {
      c.close();
    } catch (IOException ignored) {
      // Closing anyway.
    }
  }

  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    for (Socket s : sockets) {
      closeQuietly(s);
    }
  }
}
