package io.nrtcluster.common;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free TCP ports below the kernel's ephemeral range, for servers that choose a port, close it and
 * bind it later (and again after a restart): test and harness ZooKeeper ensembles, whose quorum peers
 * end their JVM when they cannot bind. A port from the ephemeral range can be handed to any outgoing
 * connection meanwhile; one below it is never handed out, only bound on purpose.
 *
 * <p>Guarantees: each port returned was bindable on every address when it was chosen, lies in
 * [{@code max(1024, low / 2)}, {@code low}) where {@code low} is the first port of {@code
 * /proc/sys/net/ipv4/ip_local_port_range} (32768 when it cannot be read), and appears once.
 */
@Internal
public final class QuietPorts {
  private static final Path RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
  private static final int DEFAULT_LOW = 32768;
  private static final int MAX_TRIES = 10_000;

  private QuietPorts() {}

  /** {@code count} distinct ports, each free now. */
  public static List<Integer> take(int count) throws IOException {
    int low = lowestEphemeral();
    int from = Math.max(1024, low / 2);
    if (low - from < count) {
      throw new IOException("no room for " + count + " ports below the ephemeral range starting at " + low);
    }
    Set<Integer> out = new LinkedHashSet<>();
    for (int tries = 0; out.size() < count; tries++) {
      if (tries == MAX_TRIES) {
        throw new IOException("found only " + out.size() + " of " + count + " free ports in [" + from + ", " + low
            + ") after " + MAX_TRIES + " tries");
      }
      int port = ThreadLocalRandom.current().nextInt(from, low);
      if (!out.contains(port) && free(port)) {
        out.add(port);
      }
    }
    return List.copyOf(out);
  }

  /** The first port the kernel hands to outgoing connections. */
  public static int lowestEphemeral() {
    try {
      // readAllLines, not readString: procfs reports a size of 0 and readString then returns one byte.
      List<String> lines = Files.readAllLines(RANGE);
      return lines.isEmpty() ? DEFAULT_LOW : Integer.parseInt(lines.get(0).trim().split("\\s+")[0]);
    } catch (IOException | NumberFormatException e) {
      return DEFAULT_LOW;
    }
  }

  private static boolean free(int port) {
    try (ServerSocket any = new ServerSocket()) {
      any.setReuseAddress(false);
      any.bind(new InetSocketAddress((InetAddress) null, port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
