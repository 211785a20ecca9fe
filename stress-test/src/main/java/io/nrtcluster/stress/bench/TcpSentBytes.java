package io.nrtcluster.stress.bench;

import io.nrtcluster.common.NamedThreadFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Bytes a process sent over TCP in a window, from the kernel's own count per socket ({@code
 * bytes_acked} of {@code ss -tinp}: bytes the peer acknowledged, so a retransmission is not counted
 * twice), leaving out connections to the given peer ports (ZooKeeper, the object store). Sampled every
 * 100 ms while it runs, so a connection that opened and closed between two samples would be missed:
 * the nodes keep one connection per replica and primary for as long as both are up.
 */
final class TcpSentBytes implements AutoCloseable {
  private final long pid;
  private final Set<Integer> excludedPeerPorts;
  /** A socket's acknowledged bytes at the first sample (0 for a socket opened since) and at the latest. */
  private static final class Acked {
    private final long first;
    private long latest;

    Acked(long first, long latest) {
      this.first = first;
      this.latest = latest;
    }
  }

  /** Per socket (local and peer address). */
  private final Map<String, Acked> sockets = new HashMap<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(new NamedThreadFactory("bench-tcp"));
  private boolean first = true;
  private IOException failure;

  /** Starts sampling process {@code pid}: what its sockets sent before now is not counted. */
  TcpSentBytes(long pid, Set<Integer> excludedPeerPorts) throws IOException {
    this.pid = pid;
    this.excludedPeerPorts = excludedPeerPorts;
    sample();
    if (failure != null) {
      throw failure;
    }
    first = false;
    timer.scheduleWithFixedDelay(this::sample, 100, 100, TimeUnit.MILLISECONDS);
  }

  private synchronized void sample() {
    String out;
    try {
      Process p = new ProcessBuilder("ss", "-tinpH").redirectErrorStream(true).start();
      out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (IOException e) {
      failure = e;
      return;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    }
    parse(out).forEach((socket, acked) -> {
      Acked seen = sockets.computeIfAbsent(socket, k -> new Acked(first ? acked : 0, acked));
      seen.latest = Math.max(seen.latest, acked);
    });
  }

  /** {@code ss -tinpH} output: per socket of {@link #pid} not to an excluded port, its acknowledged bytes. */
  Map<String, Long> parse(String ss) {
    Map<String, Long> out = new HashMap<>();
    String socket = null;
    for (String line : ss.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      if (!Character.isWhitespace(line.charAt(0))) {
        socket = null;
        String[] f = line.trim().split("\\s+");
        if (f.length >= 6 && line.contains("pid=" + pid + ",") && !excludedPeerPorts.contains(port(f[4]))) {
          socket = f[3] + ">" + f[4];
        }
        continue;
      }
      if (socket == null) {
        continue;
      }
      int at = line.indexOf("bytes_acked:");
      if (at >= 0) {
        int end = at + "bytes_acked:".length();
        int stop = end;
        while (stop < line.length() && Character.isDigit(line.charAt(stop))) {
          stop++;
        }
        out.put(socket, Long.parseLong(line.substring(end, stop)));
      }
      socket = null;
    }
    return out;
  }

  private static int port(String address) {
    try {
      return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** Bytes sent since the start, over the sockets seen (a last sample first). */
  synchronized long sent() throws IOException {
    sample();
    if (failure != null) {
      throw new IOException("ss -tinp failed: " + failure.getMessage(), failure);
    }
    long sum = 0;
    for (Acked s : sockets.values()) {
      sum += s.latest - s.first;
    }
    return sum;
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
