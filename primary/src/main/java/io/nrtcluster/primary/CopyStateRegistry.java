package io.nrtcluster.primary;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.transport.Connection;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.PrimaryNode;

/**
 * The copy-states the primary has handed out and still holds (each pins its files against deletion).
 * Every copy-state is released exactly once: when its replica releases it, when that replica's
 * connection closes (at once, or when the lease kept for a copy cut short ends: see {@link
 * CopyStateLeases}), or when the primary closes. One connection holds at most {@link
 * #MAX_HELD_PER_CONNECTION} at once, so a peer that asks and never releases cannot pin unbounded
 * memory and files.
 *
 * <p>A copy-state is owned by the connection it was handed out on. The same replica (same node id)
 * fetching from it on another connection takes it over, from a lease or from a connection the
 * primary has not yet seen drop, so that the old connection's close no longer touches it. Ids start
 * at a random point, so an id from another primary process is never mistaken for one of ours.
 */
final class CopyStateRegistry {
  /**
   * Copy-states one connection may hold at once. A replica holds one while it copies (two for a
   * moment when a newer point preempts a copy); each holds a serialized {@code SegmentInfos}, its file
   * metadata and references on its files.
   */
  static final int MAX_HELD_PER_CONNECTION = 16;

  /**
   * Pushed copy-states one connection keeps that it has not fetched from: the one a replica is about
   * to copy, and a newer one or two that arrived meanwhile (it copies only the newest).
   */
  static final int MAX_UNUSED_PUSHED = 3;

  /** One copy-state held; {@code owner} changes under the object's monitor and is null while leased. */
  private static final class Held {
    final long id;
    final CopyState state;
    final int replicaId;
    Connection owner;
    /** A file was fetched from it: a copy was under way, so a drop leases it rather than releasing it. */
    volatile boolean fetched;
    /** Handed out with an NRT point rather than asked for: dropped unused once newer ones were pushed. */
    volatile boolean pushed;

    Held(long id, CopyState state, Connection owner) {
      this.id = id;
      this.state = state;
      this.replicaId = owner.peerNodeId();
      this.owner = owner;
    }

    synchronized Connection owner() {
      return owner;
    }
  }

  /** A copy-state handed out under {@code id}. */
  record Lease(long id, CopyState state) {}

  private final PrimaryNode node;
  private final NodeLog log;
  private final AtomicLong nextId = new AtomicLong(1 + ThreadLocalRandom.current().nextLong(1L << 40));
  private final Map<Long, Held> held = new ConcurrentHashMap<>();
  /** Entries of {@link #held} per owner; reserved before a copy-state is taken, so never above the limit. */
  private final Map<Connection, Integer> heldPerOwner = new ConcurrentHashMap<>();
  private final CopyStateLeases leases;

  /** A registry that releases a dropped connection's copy-states at once. */
  CopyStateRegistry(PrimaryNode node, NodeLog log) {
    this(node, log, CopyStateLeases.Policy.NONE);
  }

  CopyStateRegistry(PrimaryNode node, NodeLog log, CopyStateLeases.Policy policy) {
    this(node, log, policy, ExecutorSource.ownThreads());
  }

  /** Leases expire on a serial executor from {@code executors}. */
  CopyStateRegistry(PrimaryNode node, NodeLog log, CopyStateLeases.Policy policy, ExecutorSource executors) {
    this.node = node;
    this.log = log;
    this.leases = new CopyStateLeases(policy, log, this::release, executors);
  }

  void observer(PrimaryObserver observer) {
    leases.observer(observer);
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
    held.put(id, new Held(id, state, owner));
    if (!owner.isOpen() && held.remove(id) != null) {
      // The owner vanished while we took the reference: nobody else would release it.
      unreserve(owner);
      node.releaseCopyState(state);
      throw new NrtClusterException(ErrorCode.CONNECTION, "replica disconnected");
    }
    return new Lease(id, state);
  }

  /**
   * Takes a reference on the current NRT point to push to {@code owner} with the point. The replica
   * may never use it (a newer point came first): of the pushed copy-states {@code owner} has not
   * fetched from, only the newest {@link #MAX_UNUSED_PUSHED} are kept, so pushes alone never reach
   * the per-connection limit.
   */
  Lease acquirePushed(Connection owner) throws IOException {
    Lease lease = acquire(owner);
    Held h = held.get(lease.id());
    if (h != null) {
      h.pushed = true;
    }
    List<Held> unused = new ArrayList<>();
    for (Held e : held.values()) {
      if (e.pushed && !e.fetched && e.owner() == owner) {
        unused.add(e);
      }
    }
    unused.sort((a, b) -> Long.compare(b.id, a.id));
    for (int i = MAX_UNUSED_PUSHED; i < unused.size(); i++) {
      release(unused.get(i).id);
    }
    return lease;
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

  /** The held copy-state {@code id}, or null (a leased one counts as not held). */
  CopyState get(long id) {
    Held h = held.get(id);
    return h == null || h.owner() == null ? null : h.state;
  }

  /**
   * The copy-state {@code id} for a fetch on {@code c}, or null when it is neither held nor leased.
   * When {@code c} is another connection of the replica that owns it (it reconnected), {@code c}
   * takes it over, ending its lease if it had one.
   */
  CopyState getFor(Connection c, long id) {
    Held h = held.get(id);
    if (h == null) {
      return null;
    }
    if (c.peerNodeId() != h.replicaId) {
      return get(id);
    }
    Connection previous;
    synchronized (h) {
      previous = h.owner;
      if (previous == c) {
        h.fetched = true;
        return h.state;
      }
      if (previous == null && !leases.take(id)) {
        return null;
      }
      h.owner = c;
      h.fetched = true;
    }
    heldPerOwner.merge(c, 1, Integer::sum);
    if (previous != null) {
      // The replica saw the drop before we did: no lease was started, but it is a resume all the same.
      unreserve(previous);
      leases.resumed(h.replicaId, id);
    }
    if (!c.isOpen()) {
      // Its close may have run before it owned the copy-state: lease (or release) it as that close would.
      disconnected(c);
    }
    return held.containsKey(id) ? h.state : null;
  }

  /** Releases copy-state {@code id} if it is still held or leased; returns whether it was. */
  boolean release(long id) {
    Held h = held.remove(id);
    if (h == null) {
      return false;
    }
    leases.forget(id);
    Connection owner = h.owner();
    if (owner != null) {
      unreserve(owner);
    }
    try {
      node.releaseCopyState(h.state);
    } catch (IOException | RuntimeException e) {
      log.warn("releasing copy-state {} failed", id, e);
    }
    return true;
  }

  /** What {@code owner}'s close did: copy-states kept under a lease and released. */
  record Dropped(int leased, int released) {}

  /**
   * {@code owner} disconnected: each copy-state it held that a file was fetched from (a copy was under
   * way) is kept under a lease for its replica to resume, when leases are on; the others are released.
   */
  Dropped disconnected(Connection owner) {
    int leased = 0;
    int released = 0;
    Set<String> current = null;
    for (Held h : List.copyOf(held.values())) {
      if (h.owner() != owner) {
        continue;
      }
      if (current == null && leases.enabled()) {
        current = currentFiles();
      }
      List<Long> evicted;
      synchronized (h) {
        if (h.owner != owner) {
          continue;
        }
        h.owner = null;
        // Only a copy under way is worth a lease: a copy-state nothing was fetched from is released.
        evicted = h.fetched && held.containsKey(h.id) ? leases.offer(h.id, h.state, h.replicaId, current) : null;
      }
      unreserve(owner);
      if (evicted == null) {
        released += release(h.id) ? 1 : 0;
        continue;
      }
      leased++;
      for (long e : evicted) {
        release(e);
      }
    }
    return new Dropped(leased, released);
  }

  /** Releases everything {@code owner} still holds, with no lease. */
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

  /** Ends every lease and starts no more (the primary is closing). */
  void endLeases() {
    for (long id : leases.close()) {
      release(id);
    }
  }

  /** Releases everything (the primary is closing). */
  void releaseAll() {
    endLeases();
    for (Long id : List.copyOf(held.keySet())) {
      release(id);
    }
  }

  private Set<String> currentFiles() {
    try {
      CopyState now = node.getCopyState();
      try {
        return new HashSet<>(now.files().keySet());
      } finally {
        node.releaseCopyState(now);
      }
    } catch (IOException | RuntimeException e) {
      // Unknown: count every leased file, which only evicts sooner.
      log.debug("reading the current point for the lease bound failed: {}", e.toString());
      return Set.of();
    }
  }

  /** What a close waited for: copies still in progress at its end, and those it did not wait for. */
  record Awaited(int inProgress, int silent) {}

  /**
   * Waits until no replica that can still be copying holds a copy-state, or until {@code
   * deadlineNanos}. A copy-state counts while its owner's connection is open and, when {@code
   * silence} is positive, was read from within it: a replica cut off (its heartbeats and requests
   * stopped, its close never arrived) finishes no copy, and waiting on it only holds the close up.
   */
  Awaited awaitCopies(long deadlineNanos, Duration silence) {
    Awaited now = awaited(silence);
    while (now.inProgress() > 0 && System.nanoTime() - deadlineNanos < 0) {
      try {
        synchronized (this) {
          // A poll: releases come from many paths, none of which need to wake this.
          wait(20);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      now = awaited(silence);
    }
    return now;
  }

  private Awaited awaited(Duration silence) {
    long silenceNanos = silence.toNanos();
    long now = System.nanoTime();
    int inProgress = 0;
    int silent = 0;
    for (Held h : held.values()) {
      Connection owner = h.owner();
      if (owner == null || !owner.isOpen()) {
        continue;
      }
      if (silenceNanos > 0 && now - owner.lastReadNanos() >= silenceNanos) {
        silent++;
      } else {
        inProgress++;
      }
    }
    return new Awaited(inProgress, silent);
  }

  /** How many copy-states are held right now, leased ones included. */
  int size() {
    return held.size();
  }

  CopyStateLeaseCounts leaseCounts() {
    return leases.counts();
  }
}
