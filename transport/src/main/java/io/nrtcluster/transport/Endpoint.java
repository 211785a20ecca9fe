package io.nrtcluster.transport;

import io.nrtcluster.common.Internal;

/**
 * A node's server-side presence for one index: answers handshakes for that index and handles the
 * requests of connections that chose it. Several endpoints (shards) share one {@link
 * TransportServer}.
 */
@Internal
public interface Endpoint extends RequestHandler {
  int nodeId();

  /** Current primary generation as this node knows it, or -1. Sent in the handshake reply. */
  long primaryGeneration();

  PeerRole role();

  /** A peer completed the handshake on this endpoint. */
  default void onConnect(Connection connection) {}
}
