package io.nrtcluster.primary;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.PrimaryNode;

/**
 * The copy-states the primary has handed out and still holds (each pins its files against deletion).
 * Every copy-state is released exactly once: when its replica releases it, when that replica's
 * connection closes, or when the primary closes.
 */
final class CopyStateRegistry {
  private record Held(CopyState state, Connection owner) {}

  /** A copy-state handed out under {@code id}. */
  record Lease(long id, CopyState state) {}

  private final PrimaryNode node;
  private final NodeLog log;
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, Held> held = new ConcurrentHashMap<>();

  CopyStateRegistry(PrimaryNode node, NodeLog log) {
    this.node = node;
    this.log = log;
  }

  /** Takes a reference on the primary's current NRT point on behalf of {@code owner}. */
  Lease acquire(Connection owner) throws IOException {
    CopyState state = node.getCopyState();
    long id = nextId.getAndIncrement();
    held.put(id, new Held(state, owner));
    if (!owner.isOpen() && held.remove(id) != null) {
      // The owner vanished while we took the reference: nobody else would release it.
      node.releaseCopyState(state);
      throw new NrtClusterException(ErrorCode.CONNECTION, "replica disconnected");
    }
    return new Lease(id, state);
  }

  /** The held copy-state {@code id}, or null. */
  CopyState get(long id) {
    Held h = held.get(id);
    return h == null ? null : h.state();
  }

  /** Releases copy-state {@code id} if it is still held; returns whether it was. */
  boolean release(long id) {
    Held h = held.remove(id);
    if (h == null) {
      return false;
    }
    try {
      node.releaseCopyState(h.state());
    } catch (IOException | RuntimeException e) {
      log.warn("releasing copy-state {} failed", id, e);
    }
    return true;
  }

  /** Releases everything {@code owner} still holds (it disconnected). */
  int releaseAll(Connection owner) {
    List<Long> ids = new ArrayList<>();
    held.forEach((id, h) -> {
      if (h.owner() == owner) {
        ids.add(id);
      }
    });
    int n = 0;
    for (long id : ids) {
      if (release(id)) {
        n++;
      }
    }
    return n;
  }

  /** Releases everything (the primary is closing). */
  void releaseAll() {
    for (Long id : List.copyOf(held.keySet())) {
      release(id);
    }
  }

  /** How many copy-states are held right now. */
  int size() {
    return held.size();
  }
}
