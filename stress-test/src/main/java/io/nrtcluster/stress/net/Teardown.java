package io.nrtcluster.stress.net;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes namespaces and links by name, killing the processes in a namespace first. Shared by a lab's
 * own close and by the sweep of leftovers of dead harnesses. Removals of things already gone succeed.
 */
final class Teardown {
  private static final Logger LOG = LoggerFactory.getLogger(Teardown.class);
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);
  private final String ip;

  Teardown(String ip) {
    this.ip = ip;
  }

  /** Names of all network namespaces ({@code ip netns list}). */
  Set<String> namespaces() throws NetLabException {
    Set<String> names = new TreeSet<>();
    for (String line : Cmd.check(ip, "netns", "list").split("\n")) {
      String name = line.trim().split("\\s+")[0];
      if (!name.isEmpty()) {
        names.add(name);
      }
    }
    return names;
  }

  /** Names of all links of the root namespace ({@code ip -o link show}), without their {@code @peer}. */
  Set<String> links() throws NetLabException {
    Set<String> names = new TreeSet<>();
    for (String line : Cmd.check(ip, "-o", "link", "show").split("\n")) {
      String[] f = line.split(":", 3);
      if (f.length >= 2) {
        String name = f[1].trim();
        int at = name.indexOf('@');
        names.add(at < 0 ? name : name.substring(0, at));
      }
    }
    return names;
  }

  /** PIDs of the processes in namespace {@code ns}; empty if the namespace is gone. */
  List<Long> pids(String ns) throws NetLabException {
    Cmd.Result r = Cmd.run(List.of(ip, "netns", "pids", ns));
    List<Long> pids = new ArrayList<>();
    if (!r.ok()) {
      return pids;
    }
    for (String line : r.out().split("\n")) {
      if (!line.isBlank()) {
        pids.add(Long.parseLong(line.trim()));
      }
    }
    return pids;
  }

  /** SIGKILLs every process in {@code ns} and waits (bounded) until none is left; returns how many it killed. */
  int killAll(String ns) throws NetLabException {
    List<Long> pids = pids(ns);
    for (long pid : pids) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    long deadline = System.nanoTime() + KILL_WAIT.toNanos();
    List<Long> left = pids;
    while (!left.isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new NetLabException("netlab: processes " + left + " in namespace " + ns + " survived SIGKILL for "
            + KILL_WAIT.toMillis() + " ms");
      }
      pause();
      left = pids(ns);
      left.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
    if (!pids.isEmpty()) {
      LOG.info("netlab: killed {} process(es) in {}: {}", pids.size(), ns, pids);
    }
    return pids.size();
  }

  /** Kills what runs in {@code ns} and deletes it. */
  void deleteNamespace(String ns) throws NetLabException {
    killAll(ns);
    Cmd.Result r = Cmd.run(List.of(ip, "netns", "delete", ns));
    if (!r.ok() && namespaces().contains(ns)) {
      r.orThrow();
    }
  }

  /**
   * Deletes link {@code name} (a veth takes its peer with it) and waits until it is gone: the kernel
   * removes the links of a deleted namespace asynchronously, so a name can outlive its namespace briefly.
   */
  void deleteLink(String name) throws NetLabException {
    long deadline = System.nanoTime() + KILL_WAIT.toNanos();
    String lastError = "";
    while (links().contains(name)) {
      if (System.nanoTime() > deadline) {
        throw new NetLabException("netlab: link " + name + " is still there after " + KILL_WAIT.toMillis() + " ms: "
            + lastError);
      }
      Cmd.Result r = Cmd.run(List.of(ip, "link", "delete", name));
      if (!r.ok()) {
        lastError = r.err().strip();
        pause();
      }
    }
  }

  private static void pause() throws NetLabException {
    try {
      Thread.sleep(50);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NetLabException("netlab: interrupted during teardown", e);
    }
  }
}
