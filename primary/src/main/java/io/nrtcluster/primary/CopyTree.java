package io.nrtcluster.primary;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One plan of who copies from whom ({@link CopyTreeConfig}): a pure function of the connected
 * replicas, so every replan gives the same answer for the same facts.
 *
 * <p>Rules, in order: a replica that must copy from the primary (an in-sync member, or one too old
 * to take a copy source) does; the remaining direct places go to replicas that can serve peers, in
 * the order given; every other replica gets the first parent, breadth first, with fewer than {@code
 * fanOut} children, and becomes a parent itself if it can serve. A replica no parent can take
 * copies from the primary.
 *
 * @param parents each replica's parent, -1 for the primary
 * @param levels each replica's depth: 1 for one that copies from the primary
 */
record CopyTree(Map<Integer, Integer> parents, Map<Integer, Integer> levels) {
  static final int PRIMARY = -1;

  CopyTree {
    parents = Collections.unmodifiableMap(new LinkedHashMap<>(parents));
    levels = Collections.unmodifiableMap(new LinkedHashMap<>(levels));
  }

  /**
   * @param replicas connected replicas, in the order they should get direct places and parents
   * @param mustBeDirect replicas that copy from the primary whatever the plan
   * @param canServe replicas that may serve peers (they speak the protocol and publish an address)
   */
  static CopyTree plan(List<Integer> replicas, Set<Integer> mustBeDirect, Set<Integer> canServe, CopyTreeConfig config) {
    Map<Integer, Integer> parents = new LinkedHashMap<>();
    Map<Integer, Integer> levels = new HashMap<>();
    List<Integer> rest = new ArrayList<>();
    for (int r : replicas) {
      if (mustBeDirect.contains(r) || !config.enabled()) {
        parents.put(r, PRIMARY);
      }
    }
    // Direct places left go to replicas that can serve, so the tree has parents.
    for (int pass = 0; pass < 2; pass++) {
      for (int r : replicas) {
        if (parents.containsKey(r) || (pass == 0) != canServe.contains(r)) {
          continue;
        }
        if (parents.size() < config.directReplicas()) {
          parents.put(r, PRIMARY);
        } else {
          rest.add(r);
        }
      }
    }
    Deque<Integer> open = new ArrayDeque<>();
    Map<Integer, Integer> children = new HashMap<>();
    for (Map.Entry<Integer, Integer> e : parents.entrySet()) {
      levels.put(e.getKey(), 1);
      if (canServe.contains(e.getKey())) {
        open.add(e.getKey());
      }
    }
    for (int r : rest) {
      while (!open.isEmpty() && children.getOrDefault(open.peekFirst(), 0) >= config.fanOut()) {
        open.pollFirst();
      }
      if (open.isEmpty()) {
        parents.put(r, PRIMARY);
        levels.put(r, 1);
        continue;
      }
      int parent = open.peekFirst();
      children.merge(parent, 1, Integer::sum);
      parents.put(r, parent);
      levels.put(r, levels.get(parent) + 1);
      if (canServe.contains(r)) {
        open.add(r);
      }
    }
    return new CopyTree(parents, levels);
  }

  /** The parent of {@code replica}, or {@link #PRIMARY} (also for one the plan does not know). */
  int parentOf(int replica) {
    return parents.getOrDefault(replica, PRIMARY);
  }

  /** Replicas that copy from {@code replica}. */
  List<Integer> childrenOf(int replica) {
    List<Integer> out = new ArrayList<>();
    parents.forEach((child, parent) -> {
      if (parent == replica) {
        out.add(child);
      }
    });
    return out;
  }

  /** True when {@code replica} copies from the primary (also for one the plan does not know). */
  boolean direct(int replica) {
    return parentOf(replica) == PRIMARY;
  }
}
