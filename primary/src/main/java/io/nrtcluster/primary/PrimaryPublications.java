package io.nrtcluster.primary;

import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ReplayPositions;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.BooleanSupplier;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.util.IORunnable;

/**
 * The primary's publication of NRT points: a refresh opens a point with the application's replay
 * position, puts its version through the publish gate, and only then shows it to searches ({@link
 * PublishedSearcher}), the observer, the replicas ({@link PrimaryEndpoint#publish}) and the point
 * listener. It owns the publication order, which commits take too ({@link #inOrder}), and the replay
 * positions of recent versions that copy-states carry.
 *
 * <p>Guarantees: versions pass the gate one at a time and in order, and nothing is announced that
 * did not pass it; a point whose publication failed is published by the next refresh even without
 * new writes; the gate's wait (ZooKeeper, possibly seconds) holds only the publication order, which
 * nothing but refreshes and commits waits for, never the point monitor or anything close takes; a
 * point handed to the listener is let go when the listener closes it, or with the writer at close.
 */
final class PrimaryPublications {
  private final ReplicatingPrimaryNode node;
  private final GenerationStore store;
  private final PrimaryEndpoint endpoint;
  private final PublishedSearcher searcher;
  private final NodeLog log;
  private final BooleanSupplier closed;
  /**
   * Orders publications: held by a refresh from its NRT point to its announcement, and by a commit
   * from its preparation to its end, across the publish gate's ZooKeeper wait. Only refreshes and
   * commits take it; nothing else waits for it.
   */
  private final Object order = new Object();
  /**
   * Held while the writer makes a point or a commit and its replay position is recorded, never across
   * the gate: what waits for it ({@link #positionOf}) waits for the writer only.
   */
  private final Object point = new Object();
  private volatile Primary.PublishGate gate = version -> {};
  private volatile PrimaryObserver observer = PrimaryObserver.NONE;
  private volatile PointListener listener;
  /**
   * The newest version that passed the publish gate; written in the publication order (close reads it
   * without). A primary opens at a version it never put through the gate (its searches show it, but
   * ZooKeeper does not know it), so its first refresh publishes even when nothing changed.
   */
  private volatile long gatedVersion = -1;
  private volatile String replayPosition;
  /** Replay position of recent versions, for the copy-states handed to replicas. */
  private final ConcurrentSkipListMap<Long, String> positions = new ConcurrentSkipListMap<>();

  PrimaryPublications(ReplicatingPrimaryNode node, GenerationStore store, PrimaryEndpoint endpoint,
      PublishedSearcher searcher, NodeLog log, BooleanSupplier closed) {
    this.node = node;
    this.store = store;
    this.endpoint = endpoint;
    this.searcher = searcher;
    this.log = log;
    this.closed = closed;
  }

  /** The replay position of the commit the primary opened, for the version it opened at. */
  void opened(String position) {
    replayPosition = position;
    recordPosition(node.getCopyStateVersion(), position);
  }

  void gate(Primary.PublishGate gate) {
    this.gate = gate;
  }

  void observer(PrimaryObserver observer) {
    this.observer = observer;
  }

  void listener(PointListener listener) {
    this.listener = listener;
  }

  /** See {@link Primary#refresh(String)}. */
  long refresh(String sourcePosition) throws IOException {
    synchronized (order) {
      long version;
      boolean publish;
      synchronized (point) {
        ensureOpen();
        String position = sourcePosition == null ? replayPosition : sourcePosition;
        if (position != null && !position.equals(replayPosition)) {
          Map<String, String> data = node.liveUserData();
          data.put(ReplayPositions.KEY, position);
          node.writer().setLiveCommitData(data.entrySet(), false);
        }
        boolean changed = node.flushAndRefresh();
        version = node.getCopyStateVersion();
        replayPosition = position;
        recordPosition(version, position);
        // A point whose publication failed earlier is still pending: publishing it is what a retry is for.
        publish = changed || version > gatedVersion;
        if (publish) {
          store.observeVersion(version);
        }
      }
      if (publish) {
        gate.beforePublish(version);
        gatedVersion = version;
        searcher.publish();
        observer.versionPublished(version);
        endpoint.publish(version);
        PointListener l = listener;
        if (l != null && l.everyRefresh()) {
          handOver(l, false);
        }
      }
      return version;
    }
  }

  /** Runs {@code step} in the publication order: no refresh or other commit runs meanwhile. */
  void inOrder(IORunnable step) throws IOException {
    synchronized (order) {
      step.run();
    }
  }

  /**
   * Runs {@code step} on an open primary holding the point monitor, as a refresh makes its point: for a
   * commit's work on the writer, never for a wait on the gate.
   */
  void atPoint(IORunnable step) throws IOException {
    synchronized (point) {
      ensureOpen();
      step.run();
    }
  }

  /** Puts {@code version} through the gate unless a refresh already did; called in the publication order. */
  void passGate(long version) throws IOException {
    if (version > gatedVersion) {
      gate.beforePublish(version);
    }
  }

  /** The newest version that passed the gate, -1 before any did; read without the publication order. */
  long gatedVersion() {
    return gatedVersion;
  }

  /** The application's source position of the newest point-in-time here, or null if never given. */
  String replayPosition() {
    return replayPosition;
  }

  /** The replay position of {@code version}, waiting for a refresh under way to record it. */
  String positionOf(long version) {
    String p = positions.get(version);
    if (p == null) {
      synchronized (point) {
        p = positions.get(version);
      }
    }
    return p;
  }

  private void recordPosition(long version, String position) {
    if (position == null) {
      positions.remove(version);
    } else {
      positions.put(version, position);
    }
    while (positions.size() > 128) {
      positions.pollFirstEntry();
    }
  }

  /**
   * Hands the current point to the point listener, if one is set, as a commit; called in the
   * publication order right after a commit covering that point became durable.
   */
  void committed() {
    PointListener l = listener;
    if (l != null) {
      handOver(l, true);
    }
  }

  /**
   * Hands the current NRT point, held, to {@code l}; called in the publication order, right after the
   * point passed the gate (a refresh) or a commit covering it became durable. Never throws: a point
   * that cannot be held is not handed over, and the refresh or commit still succeeded.
   */
  private void handOver(PointListener l, boolean commit) {
    CopyState s;
    try {
      s = node.getCopyState();
    } catch (IOException | RuntimeException e) {
      log.warn("could not hold version {} for the point listener: {}", searcher.version(), e.toString());
      return;
    }
    Map<String, String> data = new HashMap<>();
    String position = positions.get(s.version());
    if (position != null) {
      data.put(ReplayPositions.KEY, position);
    }
    HeldPoint held = new HeldPoint(s, node.writer().getDirectory(), commit, data, () -> releasePoint(s));
    try {
      l.pointReady(held);
    } catch (RuntimeException e) {
      log.warn("point listener failed on version {}: {}", s.version(), e.toString());
      held.close();
    }
  }

  /** Lets a held point go; after close the writer and its deleter are gone, and with them the hold. */
  private void releasePoint(CopyState s) {
    if (closed.getAsBoolean()) {
      return;
    }
    try {
      node.releaseCopyState(s);
    } catch (IOException | AlreadyClosedException e) {
      log.debug("releasing held version {}: {}", s.version(), e.toString());
    }
  }

  private void ensureOpen() throws NodeClosedException {
    if (closed.getAsBoolean()) {
      throw new NodeClosedException("primary " + log.name() + " is closed");
    }
  }
}
