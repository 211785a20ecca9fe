package io.nrtcluster.stress.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP round trip on loopback, measured in the harness: one byte there and back over a socket with
 * Nagle off, many times. Figure 11 adds it to twice the link delay as the round trip between nodes.
 */
final class LoopbackPing {
  private LoopbackPing() {}

  /** {@code count} round trips (after as many unmeasured ones), as a distribution. */
  static Dist measure(int count) throws IOException {
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      Thread echo = Thread.ofPlatform().name("bench-loopback-echo").start(() -> {
        try (Socket s = server.accept()) {
          s.setTcpNoDelay(true);
          InputStream in = s.getInputStream();
          OutputStream out = s.getOutputStream();
          int b;
          while ((b = in.read()) >= 0) {
            out.write(b);
            out.flush();
          }
        } catch (IOException e) {
          // the harness closed its end
        }
      });
      List<Long> rtts = new ArrayList<>();
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
        client.setTcpNoDelay(true);
        InputStream in = client.getInputStream();
        OutputStream out = client.getOutputStream();
        for (int i = 0; i < 2 * count; i++) {
          long start = System.nanoTime();
          out.write(1);
          out.flush();
          if (in.read() < 0) {
            throw new IOException("the loopback echo closed");
          }
          if (i >= count) {
            rtts.add(System.nanoTime() - start);
          }
        }
      }
      try {
        echo.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return Dist.ofNanos(rtts);
    }
  }
}
