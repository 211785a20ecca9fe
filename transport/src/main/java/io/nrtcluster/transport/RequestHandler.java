package io.nrtcluster.transport;

import io.nrtcluster.common.Internal;

/**
 * Application side of a connection: handles requests the peer starts. Called on the transport's
 * request threads, never on an event loop, so it may block briefly (take a lock, read metadata).
 * Long work must be handed off and answered later through {@link Connection#reply}.
 *
 * <p>An exception thrown from {@link #onRequest} becomes a typed error reply to that request: an
 * {@link io.nrtcluster.common.NrtClusterException} keeps its code, anything else is {@code INTERNAL}.
 */
@Internal
public interface RequestHandler {
  void onRequest(Connection connection, Message request) throws Exception;

  /** The connection closed; release whatever it held. Called once. */
  default void onClose(Connection connection) {}
}
