package io.nrtcluster.primary;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.PeerFileNames;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Endpoint;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Collections;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;
import java.util.function.LongSupplier;
import org.apache.lucene.replicator.nrt.CopyState;

/**
 * The primary's side of the wire for one index: hands out copy-states, streams only files that a
 * held copy-state or a running merge pre-copy names, tracks connected replicas and tells them about
 * new NRT points. A file name is checked before it is ever joined to the index path. A replica whose
 * connection drops mid-copy keeps its copy-state under a lease (see {@link CopyStateLeases}) and,
 * reconnected, fetches on from it by id.
 */
final class PrimaryEndpoint implements Endpoint {
  private final int nodeId;
  private final long primaryGen;
  private final Path indexPath;
  private final NodeLog log;
  private final Set<Connection> replicas = ConcurrentHashMap.newKeySet();
  private volatile ReplicatingPrimaryNode node;
  private volatile CopyStateRegistry copyStates;
  private volatile MergePreCopier preCopier;
  private volatile FileVerifier verifier;
  private volatile boolean closing;
  private volatile LongFunction<String> positions = v -> null;
  private volatile LongSupplier publishedVersion = () -> Long.MAX_VALUE;
  private volatile InstallListener installs = (node, incarnation, version) -> {};
  private final PointRelay relay;

  PrimaryEndpoint(int nodeId, long primaryGen, Path indexPath, NodeLog log, CopyTreeConfig copyTree) {
    this.nodeId = nodeId;
    this.primaryGen = primaryGen;
    this.indexPath = indexPath;
    this.log = log;
    this.relay = new PointRelay(log, primaryGen, copyTree, this::sendPoint);
  }

  /** Who copies from whom now. */
  CopyTree copyTree() {
    return relay.tree();
  }

  /** The copy tree's inputs from the cluster: node addresses, and who must copy from the primary. */
  PointRelay relay() {
    return relay;
  }

  /** Announces the points held back for children whose parent is slow or gone; called on a timer. */
  void expireHeldPoints() {
    // Also a replan: an address that was not published yet, an in-sync set that changed.
    relay.replan(replicas, publishedVersion.getAsLong());
    relay.expire(replicas);
  }

  void bind(ReplicatingPrimaryNode node, CopyStateRegistry copyStates, MergePreCopier preCopier, FileVerifier verifier) {
    this.node = node;
    this.copyStates = copyStates;
    this.preCopier = preCopier;
    this.verifier = verifier;
  }

  @Override
  public int nodeId() {
    return nodeId;
  }

  @Override
  public long primaryGeneration() {
    return primaryGen;
  }

  @Override
  public PeerRole role() {
    return PeerRole.PRIMARY;
  }

  Collection<Connection> replicas() {
    return Collections.unmodifiableSet(replicas);
  }

  /** Where the replay position of a version comes from. */
  void positions(LongFunction<String> positionOf) {
    this.positions = positionOf;
  }

  /** Where the last published version comes from: nothing newer is handed to replicas. */
  void publishedVersion(LongSupplier published) {
    this.publishedVersion = published;
  }

  /** Where replicas' install reports go. */
  void installs(InstallListener listener) {
    this.installs = listener;
  }

  /** Stops handing out new copy-states; copies in progress may finish. */
  void beginClose() {
    closing = true;
  }

  @Override
  public void onRequest(Connection c, Message request) throws Exception {
    switch (request) {
      case Message.Ping p -> c.reply(new Message.Ack(p.requestId()));
      case Message.GetCopyState g -> {
        if (closing || node == null) {
          throw new NodeClosedException("primary " + log.name() + " is closing");
        }
        CopyStateRegistry.Lease lease = copyStates.acquire(c);
        CopyState s = lease.state();
        long published = publishedVersion.getAsLong();
        if (s.version() > published) {
          // A refresh whose publication is under way or failed (lost epoch): the cluster may give this
          // version number other contents, so no replica may copy it from here. The replica retries.
          copyStates.release(lease.id());
          throw new NotPublishedException("primary " + log.name() + " has not published version " + s.version()
              + " (last published: " + published + ")");
        }
        c.reply(new Message.CopyStateReply(g.requestId(), lease.id(), s.primaryGen(), s.version(), s.gen(),
            s.infosBytes(), FileMetaEncoder.toWire(s.files()), s.completedMergeFiles(), positions.apply(s.version())));
      }
      case Message.ReleaseCopyState r -> {
        copyStates.release(r.copyStateId());
        c.reply(new Message.Ack(r.requestId()));
      }
      case Message.FetchFile f -> serveFile(c, f);
      case Message.NewReplica n -> {
        if (closing) {
          throw new NodeClosedException("primary " + log.name() + " is closing");
        }
        c.attach(n.replicaId());
        boolean added = replicas.add(c);
        // Before the ACK: the replica reports what it searches right after it, and only a replica the
        // plan has copying from the primary may join the in-sync set then; before any point too, so
        // it learns where to fetch from first.
        relay.replan(replicas, publishedVersion.getAsLong());
        c.reply(new Message.Ack(n.requestId()));
        if (added) {
          log.info("replica R{} joined from {} (searching version {})", n.replicaId(), c.remoteAddress(), n.searchingVersion());
          preCopier.onNewReplica(c);
        }
        long version = publishedVersion.getAsLong();
        if (n.searchingVersion() != version) {
          sendPoint(c, version);
        }
      }
      case Message.Installed i -> {
        c.reply(new Message.Ack(i.requestId()));
        long published = publishedVersion.getAsLong();
        if (i.primaryGen() > primaryGen || i.version() > published) {
          // Nothing a replica installed can be newer than what we published: a confused or stale peer.
          log.warn("ignoring R{}'s report of version {} (generation {}): we published up to {}", c.peerNodeId(), i.version(),
              i.primaryGen(), published);
        } else {
          installs.installed(c.peerNodeId(), i.incarnation(), i.version());
          relay.installed(replicas, c.peerNodeId(), i.version());
        }
      }
      case Message.ReportCorruptFile r -> onCorruptFileReport(c, r);
      default -> throw new ProtocolException("a primary does not handle " + request.getClass().getSimpleName());
    }
  }

  private void serveFile(Connection c, Message.FetchFile f) throws NrtClusterException {
    String name = PeerFileNames.requireSafe(f.name());
    switch (f.sourceKind()) {
      case COPY_STATE -> {
        // A replica that reconnected after a drop fetches on from the copy-state kept under its lease.
        CopyState s = copyStates.getFor(c, f.sourceId());
        if (s == null) {
          throw new NrtClusterException(ErrorCode.UNKNOWN_COPY_STATE, "copy-state " + f.sourceId()
              + " is not held (released, or its lease expired): ask for a new one");
        }
        if (!s.files().containsKey(name)) {
          throw new FileNotServableException("file '" + name + "' is not in copy-state " + f.sourceId());
        }
      }
      case MERGE_PRECOPY -> {
        if (!preCopier.isServable(f.sourceId(), name)) {
          throw new FileNotServableException("file '" + name + "' is not in running merge pre-copy " + f.sourceId());
        }
      }
    }
    c.streamFile(f, indexPath.resolve(name));
  }

  /**
   * A replica saw a file of ours fail its checksum again and again: our own copy is read in full on
   * the verifier's thread (this request thread only queues it), and the verdict is sent when known.
   */
  private void onCorruptFileReport(Connection c, Message.ReportCorruptFile r) throws NrtClusterException {
    if (r.primaryGen() != primaryGen) {
      throw new FileNotServableException("the report names primary generation " + r.primaryGen() + ", this primary leads "
          + primaryGen);
    }
    FileVerifier v = verifier;
    if (closing || v == null) {
      throw new NodeClosedException("primary " + log.name() + " is closing");
    }
    log.warn("replica R{} at {} reports that file {} failed its checksum {} times in transit; verifying our copy",
        c.attachment(), c.remoteAddress(), PeerFileNames.requireSafe(r.name()), r.failures());
    v.verify(r.name(), r.length(), r.checksum()).whenComplete((result, failure) -> {
      if (failure == null) {
        c.reply(new Message.FileVerdict(r.requestId(), result.verdict(), result.detail()));
      } else if (failure instanceof NrtClusterException e) {
        c.reply(new Message.ErrorReply(r.requestId(), e.code(), e.getMessage()));
      } else {
        log.warn("verifying file {} for replica R{} failed", r.name(), c.attachment(), failure);
        c.reply(new Message.ErrorReply(r.requestId(), ErrorCode.INTERNAL, String.valueOf(failure)));
      }
    });
  }

  @Override
  public void onClose(Connection c) {
    if (replicas.remove(c)) {
      log.info("replica R{} at {} disconnected", c.attachment(), c.remoteAddress());
      relay.replan(replicas, publishedVersion.getAsLong());
    }
    CopyStateRegistry registry = copyStates;
    if (registry != null) {
      CopyStateRegistry.Dropped dropped = closing ? new CopyStateRegistry.Dropped(0, registry.releaseAll(c))
          : registry.disconnected(c);
      if (dropped.released() > 0) {
        log.info("released {} copy-states held by disconnected {}", dropped.released(), c.remoteAddress());
      }
    }
  }

  /** Tells every connected replica about NRT point {@code version}, which passed the publish gate. */
  void publish(long version) {
    // Replanned first: the in-sync set (who must copy from the primary) may have changed.
    relay.replan(replicas, version);
    relay.publish(replicas, version);
  }

  /**
   * Announces published point {@code version} to {@code c}: with its copy-state when the replica
   * speaks protocol version 2, so that it need not ask (a round trip less per version), else plain.
   * The copy-state pushed is never of a version newer than the last published one: such a version
   * may still get other contents, so only its bare number would be worse than nothing.
   */
  private void sendPoint(Connection c, long version) {
    CopyStateRegistry registry = copyStates;
    if (closing || registry == null || !c.peerTakesPushedCopyStates()) {
      c.send(new Message.NrtPoint(c.nextRequestId(), primaryGen, version));
      return;
    }
    CopyStateRegistry.Lease lease;
    try {
      lease = registry.acquirePushed(c);
    } catch (IOException | RuntimeException e) {
      // Too many held, or the node is closing: the replica asks for the copy-state itself.
      log.debug("pushing the copy-state of version {} to R{} failed: {}", version, c.attachment(), e.toString());
      c.send(new Message.NrtPoint(c.nextRequestId(), primaryGen, version));
      return;
    }
    CopyState s = lease.state();
    long published = publishedVersion.getAsLong();
    if (s.version() > published || s.version() < version) {
      registry.release(lease.id());
      c.send(new Message.NrtPoint(c.nextRequestId(), primaryGen, version));
      return;
    }
    long id = c.nextRequestId();
    c.send(new Message.NrtPointCopyState(id, new Message.CopyStateReply(id, lease.id(), s.primaryGen(), s.version(),
        s.gen(), s.infosBytes(), FileMetaEncoder.toWire(s.files()), s.completedMergeFiles(), positions.apply(s.version()))));
  }
}
