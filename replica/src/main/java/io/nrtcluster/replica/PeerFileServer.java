package io.nrtcluster.replica;

import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.PeerFileNames;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Endpoint;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportServer;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * A replica's side of the wire for peers that copy from it (a copy tree, see {@link PeerSource}):
 * serves a file it holds under its real name, and only when the file's Lucene checksum (its
 * footer) equals the one the asking peer expects, which the peer took from the primary's
 * copy-state. Nothing else is answered: copy-states, points and pre-copies come from the primary.
 *
 * <p>Temp files are never served (a copied file gets its real name only once every byte was
 * verified); a file whose bytes rotted on disk under an intact footer is served, and the asking
 * peer, which verifies every byte against the primary's checksum, discards it and fetches it from
 * the primary.
 *
 * <p>It serves while registered on the shared transport's server ({@link #register}), from the
 * replica's start to its close.
 */
final class PeerFileServer implements Endpoint {
  private final int nodeId;
  private final Supplier<ReplicatingReplicaNode> node;
  private final AtomicLong filesServed = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  /** The server this is registered on, or null. */
  private volatile TransportServer registeredOn;

  PeerFileServer(int nodeId, Supplier<ReplicatingReplicaNode> node) {
    this.nodeId = nodeId;
    this.node = node;
  }

  /**
   * Lets peers that the primary points at this replica copy its installed files, on the shared
   * transport's server when there is one (a standalone replica has none: it never serves peers,
   * and a primary never names a node without a published address as a copy source).
   */
  void register(Transport transport, String index, NodeLog log) {
    TransportServer server = transport.server();
    if (server == null) {
      return;
    }
    try {
      server.register(index, this);
      registeredOn = server;
    } catch (IllegalStateException e) {
      log.warn("not serving copies to peers: {}", e.getMessage());
    }
  }

  /** Stops serving peers (nothing to do unless {@link #register} did register). */
  void unregister(String index) {
    TransportServer server = registeredOn;
    if (server != null) {
      server.unregister(index, this);
    }
  }

  @Override
  public int nodeId() {
    return nodeId;
  }

  @Override
  public long primaryGeneration() {
    ReplicatingReplicaNode n = node.get();
    return n == null ? -1 : n.lastPrimaryGen();
  }

  @Override
  public PeerRole role() {
    return PeerRole.REPLICA;
  }

  /** Files streamed to peers so far. */
  long filesServed() {
    return filesServed.get();
  }

  /** Peer fetches refused (a file not held, or held with another checksum). */
  long refused() {
    return refused.get();
  }

  @Override
  public void onRequest(Connection c, Message request) throws Exception {
    switch (request) {
      case Message.Ping p -> c.reply(new Message.Ack(p.requestId()));
      case Message.FetchFile f when f.sourceKind() == Message.SourceKind.PEER -> serve(c, f);
      default -> throw new ProtocolException("a replica serves only peer file fetches, not "
          + request.getClass().getSimpleName());
    }
  }

  private void serve(Connection c, Message.FetchFile f) throws Exception {
    String name = PeerFileNames.requireSafe(f.name());
    ReplicatingReplicaNode n = node.get();
    if (n == null || !n.isStarted()) {
      throw new NodeClosedException("replica R" + nodeId + " has no index open");
    }
    FileMetaData local = name.endsWith(".tmp") ? null : n.readLocalFileMetaData(name);
    if (local == null || local.checksum() != f.sourceId()) {
      refused.incrementAndGet();
      throw new FileNotServableException("replica R" + nodeId + " does not hold file '" + name + "' with checksum "
          + Long.toHexString(f.sourceId()) + (local == null ? "" : " (it holds checksum " + Long.toHexString(local.checksum()) + ")"));
    }
    filesServed.incrementAndGet();
    c.streamFile(f, n.indexFolder().resolve(name));
  }
}
