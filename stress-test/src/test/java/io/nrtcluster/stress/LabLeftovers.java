package io.nrtcluster.stress;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The network namespaces and links a lab of process {@code pid} left behind, as {@code ip} lists them. */
final class LabLeftovers {
  private LabLeftovers() {}

  static List<String> of(long pid) throws IOException, InterruptedException {
    List<String> left = new ArrayList<>();
    for (String line : run("ip", "netns", "list")) {
      String name = line.split("\\s+")[0];
      if (name.startsWith("nrtc-" + pid)) {
        left.add("netns " + name);
      }
    }
    for (String line : run("ip", "-o", "link", "show")) {
      String[] parts = line.split(":\\s+");
      if (parts.length > 1) {
        String name = parts[1].split("@")[0];
        if (name.startsWith("nrtcb" + pid) || name.startsWith("nrtc" + pid)) {
          left.add("link " + name);
        }
      }
    }
    return left;
  }

  private static List<String> run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(10, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " hung");
    }
    return out.lines().filter(l -> !l.isBlank()).toList();
  }
}
