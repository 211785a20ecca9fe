package io.nrtcluster.stress.net;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A tiny network probe run inside a lab host (tests only).
 * <ul>
 *   <li>{@code serve IP PORT}: TCP and UDP on IP:PORT. A TCP client sends one command byte:
 *       'S' and a long n: receives n bytes; 'R': sends bytes until it shuts its output, then receives
 *       their count as a long; 'U': receives the number of UDP datagrams that arrived so far.
 *   <li>{@code connect IP PORT TIMEOUT_MS}: prints OK, TIMEOUT or ERROR and the exception; exits 0, 2 or 3.
 *   <li>{@code udp IP PORT N}: sends N datagrams.
 * </ul>
 */
public final class NetProbeMain {
  private NetProbeMain() {}

  public static void main(String[] args) throws Exception {
    InetAddress ip = InetAddress.getByName(args[1]);
    int port = Integer.parseInt(args[2]);
    switch (args[0]) {
      case "serve" -> serve(ip, port);
      case "connect" -> System.exit(connect(ip, port, Integer.parseInt(args[3])));
      case "udp" -> {
        try (DatagramSocket s = new DatagramSocket()) {
          for (int i = 0; i < Integer.parseInt(args[3]); i++) {
            s.send(new DatagramPacket(new byte[] {1}, 1, ip, port));
          }
        }
      }
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  private static int connect(InetAddress ip, int port, int timeoutMs) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ip, port), timeoutMs);
      System.out.println("OK");
      return 0;
    } catch (SocketTimeoutException e) {
      System.out.println("TIMEOUT");
      return 2;
    } catch (IOException e) {
      System.out.println("ERROR " + e);
      return 3;
    }
  }

  private static void serve(InetAddress ip, int port) throws IOException {
    AtomicLong datagrams = new AtomicLong();
    DatagramSocket udp = new DatagramSocket(new InetSocketAddress(ip, port));
    Thread.ofPlatform().daemon().start(() -> {
      DatagramPacket p = new DatagramPacket(new byte[64], 64);
      while (true) {
        try {
          udp.receive(p);
          datagrams.incrementAndGet();
        } catch (IOException e) {
          return;
        }
      }
    });
    try (ServerSocket server = new ServerSocket()) {
      server.bind(new InetSocketAddress(ip, port), 50);
      while (true) {
        Socket c = server.accept();
        Thread.ofVirtual().start(() -> handle(c, datagrams));
      }
    }
  }

  private static void handle(Socket c, AtomicLong datagrams) {
    try (c) {
      DataInputStream in = new DataInputStream(c.getInputStream());
      DataOutputStream out = new DataOutputStream(c.getOutputStream());
      switch (in.read()) {
        case 'S' -> {
          long n = in.readLong();
          byte[] chunk = new byte[16 * 1024];
          for (long sent = 0; sent < n; sent += chunk.length) {
            out.write(chunk, 0, (int) Math.min(chunk.length, n - sent));
          }
        }
        case 'R' -> out.writeLong(drain(in));
        case 'U' -> out.writeLong(datagrams.get());
        default -> { }
      }
      out.flush();
    } catch (IOException e) {
      // the client went away
    }
  }

  private static long drain(InputStream in) throws IOException {
    byte[] buf = new byte[16 * 1024];
    long total = 0;
    for (int n; (n = in.read(buf)) >= 0; ) {
      total += n;
    }
    return total;
  }
}
