package io.nrtcluster.primary;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.function.ObjLongConsumer;

/**
 * The primary's copy tree at work ({@link CopyTreeConfig}): keeps the plan ({@link CopyTree}) in step
 * with the connected replicas and the in-sync set, tells each replica its copy source when that
 * changes ({@link Message.CopySource}), and announces each published point to a replica that copies
 * from a parent only once the parent installed it, so the parent holds the files when the child
 * asks. A parent that has not installed the point {@code parentWait} after it was published, or
 * that disconnects, no longer holds its children back: they are told about the point and fetch from
 * the primary whatever the parent lacks.
 *
 * <p>Only the primary's own decisions live here; which version a replica copies, and every
 * checksum it verifies, still come from the primary's copy-state.
 */
final class PointRelay {
  /** A point held back for a child: its version, and since when the child waits. */
  private record Held(long version, long since) {}

  private final NodeLog log;
  private final long primaryGen;
  private final CopyTreeConfig config;
  private final ObjLongConsumer<Connection> sendPoint;
  private volatile IntFunction<String> addresses = id -> null;
  private volatile IntPredicate mustBeDirect = id -> false;
  /** Written under this, read without it (an immutable plan). */
  private volatile CopyTree tree = new CopyTree(Map.of(), Map.of());
  /** Whether the last plan knew every connected replica that can serve peers by its address. */
  private volatile boolean settled = true;
  private final Map<Integer, Integer> sentSource = new HashMap<>();
  private final Map<Integer, Long> installed = new HashMap<>();
  /** Points held back for a child until its parent installs them: child id to (version, since). */
  private final Map<Integer, Held> heldBack = new HashMap<>();

  PointRelay(NodeLog log, long primaryGen, CopyTreeConfig config, ObjLongConsumer<Connection> sendPoint) {
    this.log = log;
    this.primaryGen = primaryGen;
    this.config = config;
    this.sendPoint = sendPoint;
  }

  /** Where each node's replication endpoint listens ({@code host:port}), or null when unknown. */
  void addresses(IntFunction<String> addressOf) {
    this.addresses = addressOf;
  }

  /** Which replicas must copy from the primary (the in-sync set's members). */
  void mustBeDirect(IntPredicate direct) {
    this.mustBeDirect = direct;
  }

  /**
   * True when the current plan knew the address of every connected replica that could serve peers:
   * only then is "copies from the primary" final enough to let a replica join the in-sync set (one
   * planned direct only because its would-be parent's address was not known yet would otherwise
   * join, and stay direct for good).
   */
  boolean settled() {
    return settled;
  }

  /** The current plan (an immutable snapshot). */
  CopyTree tree() {
    return tree;
  }

  /**
   * Replans for {@code replicas} and sends every copy source that changed; the points held back for
   * a replica whose parent changed or left are announced at once ({@code published} is the newest).
   */
  void replan(Collection<Connection> replicas, long published) {
    List<Runnable> sends = new ArrayList<>();
    synchronized (this) {
      List<Connection> ordered = new ArrayList<>(replicas);
      ordered.sort(Comparator.comparingInt(Connection::peerNodeId));
      List<Integer> ids = new ArrayList<>();
      Set<Integer> direct = new HashSet<>();
      Set<Integer> canServe = new HashSet<>();
      Map<Integer, Connection> byId = new HashMap<>();
      for (Connection c : ordered) {
        int id = c.peerNodeId();
        ids.add(id);
        byId.put(id, c);
        if (!c.peerTakesCopySources() || mustBeDirect.test(id)) {
          direct.add(id);
        }
        if (c.peerTakesCopySources() && addresses.apply(id) != null) {
          canServe.add(id);
        }
      }
      CopyTree next = CopyTree.plan(ids, direct, canServe, config);
      settled = !config.enabled() || ids.size() <= config.directReplicas() || ordered.stream().allMatch(c -> !c.peerTakesCopySources() || canServe.contains(c.peerNodeId()));
      if (!next.equals(tree)) {
        log.info("copy tree: {}", describe(next));
      }
      tree = next;
      sentSource.keySet().retainAll(byId.keySet());
      installed.keySet().retainAll(byId.keySet());
      heldBack.keySet().retainAll(byId.keySet());
      for (Map.Entry<Integer, Integer> e : next.parents().entrySet()) {
        int id = e.getKey();
        int parent = e.getValue();
        Connection c = byId.get(id);
        if (!c.peerTakesCopySources()) {
          continue;
        }
        Integer before = sentSource.get(id);
        if (before == null || before != parent) {
          sentSource.put(id, parent);
          String address = parent == CopyTree.PRIMARY ? "" : addresses.apply(parent);
          sends.add(() -> c.send(new Message.CopySource(c.nextRequestId(), primaryGen, parent, address)));
          Held held = heldBack.remove(id);
          if (held != null && (parent == CopyTree.PRIMARY || installed.getOrDefault(parent, -1L) >= held.version())) {
            sends.add(() -> sendPoint.accept(c, held.version()));
          } else if (held != null) {
            heldBack.put(id, held);
          }
        }
      }
    }
    sends.forEach(Runnable::run);
  }

  /** Announces published point {@code version}: now to replicas whose parent holds it (or the primary), later to the others. */
  void publish(Collection<Connection> replicas, long version) {
    List<Connection> now = new ArrayList<>();
    synchronized (this) {
      long at = System.nanoTime();
      for (Connection c : replicas) {
        int parent = tree.parentOf(c.peerNodeId());
        if (parent == CopyTree.PRIMARY || installed.getOrDefault(parent, -1L) >= version) {
          heldBack.remove(c.peerNodeId());
          now.add(c);
        } else {
          Held held = heldBack.get(c.peerNodeId());
          heldBack.put(c.peerNodeId(), new Held(version, held == null ? at : held.since()));
        }
      }
    }
    for (Connection c : now) {
      sendPoint.accept(c, version);
    }
  }

  /** Replica {@code id} installed {@code version}: its children waiting for it get the point. */
  void installed(Collection<Connection> replicas, int id, long version) {
    List<Connection> release = new ArrayList<>();
    List<Held> versions = new ArrayList<>();
    synchronized (this) {
      installed.merge(id, version, Math::max);
      for (Connection c : replicas) {
        Held held = heldBack.get(c.peerNodeId());
        if (held != null && tree.parentOf(c.peerNodeId()) == id && held.version() <= version) {
          heldBack.remove(c.peerNodeId());
          release.add(c);
          versions.add(held);
        }
      }
    }
    for (int i = 0; i < release.size(); i++) {
      sendPoint.accept(release.get(i), versions.get(i).version());
    }
  }

  /** Announces the points held back longer than {@code parentWait}: the parent is slow, or gone. */
  void expire(Collection<Connection> replicas) {
    List<Connection> release = new ArrayList<>();
    List<Held> versions = new ArrayList<>();
    synchronized (this) {
      long now = System.nanoTime();
      for (Connection c : replicas) {
        Held held = heldBack.get(c.peerNodeId());
        if (held != null && now - held.since() > config.parentWait().toNanos()) {
          heldBack.remove(c.peerNodeId());
          release.add(c);
          versions.add(held);
        }
      }
    }
    for (int i = 0; i < release.size(); i++) {
      Connection c = release.get(i);
      log.info("R{}'s copy source R{} did not install version {} within {}: announcing it anyway", c.peerNodeId(),
          tree().parentOf(c.peerNodeId()), versions.get(i).version(), config.parentWait());
      sendPoint.accept(c, versions.get(i).version());
    }
  }

  private static String describe(CopyTree t) {
    StringBuilder sb = new StringBuilder();
    t.parents().forEach((child, parent) -> sb.append(sb.isEmpty() ? "" : ", ").append('R').append(child).append(" <- ")
        .append(parent == CopyTree.PRIMARY ? "primary" : "R" + parent));
    return sb.isEmpty() ? "no replicas" : sb.toString();
  }
}
