package io.nrtcluster.stress;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.nrtcluster.election.Role;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The node processes of one index: the one harness for clusters of node JVMs. The chaos test
 * ({@link ChaosCluster}) and the benchmark ({@code BenchNodes}) start their {@link NodeProcess}es,
 * find the primary and wait for roles and versions through it; what differs between them (the node's
 * main class, the ZooKeeper they use) stays with them. The in-JVM counterpart is node's test-jar
 * {@code ClusterHarness}; the names are the same for the same things ({@code startAll},
 * {@code startWithFirstAsPrimary}, {@code awaitPrimary}, {@code primary}, {@code replicasOf},
 * {@code awaitAllAt}).
 *
 * <p>Guarantees: every wait is bounded and fails with an {@link IOException} naming what it waited
 * for; the primary is the one {@linkplain #primaryLocator located} (by default: the only live node
 * whose own status says {@link Role#PRIMARY}) and is up; roles are read as {@link Role}s from each
 * node's {@code /status} endpoint, which both node mains serve.
 */
public final class ProcessCluster {
  private static final Duration POLL = Duration.ofMillis(20);
  private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(2);

  /** How the current primary is found; null when there is none (or it cannot be known now). */
  @FunctionalInterface
  public interface PrimaryLocator {
    NodeProcess primary(ProcessCluster cluster);
  }

  /** The part of a node's {@code /status} answer the harness reads (the rest differs between node mains). */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record RoleStatus(int nodeId, Role role, long gen, long version) {}

  private final List<NodeProcess> nodes;
  private final Duration startTimeout;
  private volatile PrimaryLocator locator = ProcessCluster::selfReportedPrimary;

  /** The processes {@code nodes} (node ids 1..n, in order), each given {@code startTimeout} to serve when started. */
  public ProcessCluster(List<NodeProcess> nodes, Duration startTimeout) {
    for (int i = 0; i < nodes.size(); i++) {
      if (nodes.get(i).id() != i + 1) {
        throw new IllegalArgumentException("node " + (i + 1) + " has id " + nodes.get(i).id());
      }
    }
    this.nodes = List.copyOf(nodes);
    this.startTimeout = startTimeout;
  }

  /** Finds the primary with {@code l} from now on (for example: who ZooKeeper names). */
  public ProcessCluster primaryLocator(PrimaryLocator l) {
    this.locator = l;
    return this;
  }

  public List<NodeProcess> nodes() {
    return nodes;
  }

  /** The node with id {@code id} (1-based). */
  public NodeProcess node(int id) {
    return nodes.get(id - 1);
  }

  /** Starts {@code n} and waits (bounded) until it serves. */
  public void start(NodeProcess n) throws IOException {
    n.start(startTimeout.toMillis());
  }

  /** Starts every node that is down, in parallel; the election picks the primary. */
  public ProcessCluster startAll() throws IOException {
    List<NodeProcess> down = nodes.stream().filter(n -> n.state() == NodeProcess.State.DOWN).toList();
    Parallel.forEach(down, "start", this::start);
    return this;
  }

  /** Starts node 1 alone and waits until it is the primary, then the others (in parallel). */
  public ProcessCluster startWithFirstAsPrimary() throws IOException {
    NodeProcess first = nodes.get(0);
    start(first);
    NodeProcess p = awaitPrimary(startTimeout);
    if (p != first) {
      throw new IOException("N1 started alone but N" + p.id() + " is primary");
    }
    return startAll();
  }

  /** Kills every node process at once (SIGKILL). */
  public void killAll() {
    try {
      Parallel.forEach(nodes, "kill", NodeProcess::kill);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The primary now, as the locator finds it, if it is up; otherwise null. */
  public NodeProcess primary() {
    NodeProcess p = locator.primary(this);
    return p != null && p.state() == NodeProcess.State.UP ? p : null;
  }

  /** Waits (bounded) until there is a {@linkplain #primary() primary}; returns it. */
  public NodeProcess awaitPrimary(Duration timeout) throws IOException {
    return await("a primary", timeout, this::primary);
  }

  /** The nodes that are up and are not {@code primary}, in id order. */
  public List<NodeProcess> replicasOf(NodeProcess primary) {
    return nodes.stream().filter(n -> n != primary && n.state() == NodeProcess.State.UP).toList();
  }

  /** Node {@code n}'s own status, or null when it is not up or does not answer. */
  public static RoleStatus status(NodeProcess n) {
    if (n.state() != NodeProcess.State.UP) {
      return null;
    }
    try {
      return new JsonClient("N" + n.id(), n.httpHost(), n.httpPort()).get("/status", STATUS_TIMEOUT, RoleStatus.class);
    } catch (AgentException e) {
      return null;
    }
  }

  /** Waits (bounded) until node {@code n} says it has {@code role}. */
  public static void awaitRole(NodeProcess n, Role role, Duration timeout) throws IOException {
    await("N" + n.id() + " " + role, timeout, () -> {
      RoleStatus s = status(n);
      return s != null && s.role() == role ? s : null;
    });
  }

  /** Waits (bounded) until one node says it is {@link Role#PRIMARY} and every other one {@link Role#REPLICA}. */
  public void awaitRoles(Duration timeout) throws IOException {
    await("one primary and " + (nodes.size() - 1) + " replicas", timeout, () -> {
      int primaries = 0;
      int replicas = 0;
      for (NodeProcess n : nodes) {
        RoleStatus s = status(n);
        Role r = s == null ? null : s.role();
        primaries += r == Role.PRIMARY ? 1 : 0;
        replicas += r == Role.REPLICA ? 1 : 0;
      }
      return primaries == 1 && replicas == nodes.size() - 1 ? Boolean.TRUE : null;
    });
  }

  /** The unique node whose own status says {@link Role#PRIMARY}, or null (none, or more than one). */
  public static NodeProcess selfReportedPrimary(ProcessCluster cluster) {
    NodeProcess found = null;
    for (NodeProcess n : cluster.nodes) {
      RoleStatus s = status(n);
      if (s != null && s.role() == Role.PRIMARY) {
        if (found != null) {
          return null;
        }
        found = n;
      }
    }
    return found;
  }

  /** Waits (bounded) until every node that is up searches {@code version} or newer. */
  public void awaitAllAt(long version, Duration timeout) throws IOException {
    await("every live node at version " + version, timeout, () -> {
      for (NodeProcess n : nodes) {
        if (n.state() == NodeProcess.State.UP) {
          RoleStatus s = status(n);
          if (s == null || s.version() < version) {
            return null;
          }
        }
      }
      return Boolean.TRUE;
    });
  }

  /** The one wait of this harness: polls {@code probe} until it answers non-null, for at most {@code timeout}. */
  private static <T> T await(String what, Duration timeout, Supplier<T> probe) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      T found = probe.get();
      if (found != null) {
        return found;
      }
      if (System.nanoTime() - deadline >= 0) {
        throw new IOException("waited " + timeout.toMillis() + " ms for " + what + " in vain");
      }
      if (Thread.currentThread().isInterrupted()) {
        throw new IOException("interrupted while waiting for " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL.toMillis()));
    }
  }
}
