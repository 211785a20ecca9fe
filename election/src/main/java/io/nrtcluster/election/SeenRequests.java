package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * The operator commands one node has taken on, so that a command the cache reports again (after a
 * reconnect, say) is not queued twice. Bounded two ways: an id is forgotten when its znode is
 * deleted (the operator withdrew the command), and beyond {@code capacity} ids the oldest is
 * forgotten, for commands whose deletion this node never saw. Forgetting is safe: a node does not
 * run a command it has answered (its ack znode is checked first), so the set only saves work.
 * Thread-safe; no method waits for anything.
 */
final class SeenRequests {
  private final int capacity;
  private final LinkedHashSet<String> ids = new LinkedHashSet<>();

  SeenRequests(int capacity) {
    this.capacity = Checks.inRange("capacity", capacity, 1, 1 << 20);
  }

  /** True the first time {@code id} is offered since it was last forgotten. */
  synchronized boolean firstTime(String id) {
    if (!ids.add(id)) {
      return false;
    }
    if (ids.size() > capacity) {
      Iterator<String> oldest = ids.iterator();
      oldest.next();
      oldest.remove();
    }
    return true;
  }

  synchronized void forget(String id) {
    ids.remove(id);
  }

  synchronized int size() {
    return ids.size();
  }
}
