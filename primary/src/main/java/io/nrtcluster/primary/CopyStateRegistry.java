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
 * connection closes, or when the primary closes. One connection holds at most {@link
 * #MAX_HELD_PER_CONNECTION} at once, so a peer that asks and never releases cannot pin unbounded
 * memory and files.
 */
final class CopyStateRegistry {
  /**
   * Copy-states one connection may hold at once. A replica holds one while it copies (two for a
   * moment when a newer point preempts a copy); each holds a serialized {@code SegmentInfos}, its file
   * metadata and references on its files.
   */
  static final int MAX_HELD_PER_CONNECTION = 16;

  private record Held(CopyState state, Connection owner) {}

  /** A copy-state handed out under {@code id}. */
  record Lease(long id, CopyState state) {}

  private final PrimaryNode node;
  private final NodeLog log;
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, Held> held = new ConcurrentHashMap<>();
  /** Entries of {@link #held} per owner; reserved before a copy-state is taken, so never above the limit. */
  private final Map<Connection, Integer> heldPerOwner = new ConcurrentHashMap<>();

  CopyStateRegistry(PrimaryNode node, NodeLog log) {
    this.node = node;
    this.log = log;
  }

  /** Takes a reference on the primary's current NRT point on behalf of {@code owner}. */
  Lease acquire(Connection owner) throws IOException {
    if (!reserve(owner)) {
      throw new NrtClusterException(ErrorCode.TOO_MANY_REQUESTS,
          "this connection already holds " + MAX_HELD_PER_CONNECTION + " copy-states; release one first");
    }
    CopyState state;
    try {
      state = node.getCopyState();
    } catch (IOException | RuntimeException e) {
      unreserve(owner);
      throw e;
    }
    long id = nextId.getAndIncrement();
    held.put(id, new Held(state, owner));
    if (!owner.isOpen() && held.remove(id) != null) {
      // The owner vanished while we took the reference: nobody else would release it.
      unreserve(owner);
      node.releaseCopyState(state);
      throw new NrtClusterException(ErrorCode.CONNECTION, "replica disconnected");
    }
    return new Lease(id, state);
  }

  private boolean reserve(Connection owner) {
    boolean[] reserved = {false};
    heldPerOwner.compute(owner, (o, n) -> {
      int count = n == null ? 0 : n;
      if (count >= MAX_HELD_PER_CONNECTION) {
        return n;
      }
      reserved[0] = true;
      return count + 1;
    });
    return reserved[0];
  }

  private void unreserve(Connection owner) {
    heldPerOwner.computeIfPresent(owner, (o, n) -> n <= 1 ? null : n - 1);
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
    unreserve(h.owner());
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
