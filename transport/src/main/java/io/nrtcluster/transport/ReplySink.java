package io.nrtcluster.transport;

/**
 * Receives what the peer sends back for one outgoing request. Called on the connection's event
 * loop, in arrival order; must not block.
 */
interface ReplySink {
  /** Handles one reply; returns true when the exchange is complete and the sink can be dropped. */
  boolean accept(Message reply);

  /** The exchange ended abnormally (connection lost, timeout, local cancel). */
  void fail(Throwable cause);
}
