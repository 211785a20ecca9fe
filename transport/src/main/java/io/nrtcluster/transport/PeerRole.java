package io.nrtcluster.transport;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.ProtocolException;

/** What a connecting peer says it is during the handshake. */
@Internal
public enum PeerRole {
  PRIMARY(1),
  REPLICA(2),
  /** A tool or client that only asks questions (status, admin commands). */
  CLIENT(3);

  final byte wire;

  PeerRole(int wire) {
    this.wire = (byte) wire;
  }

  static PeerRole fromWire(byte b) throws ProtocolException {
    for (PeerRole r : values()) {
      if (r.wire == b) {
        return r;
      }
    }
    throw new ProtocolException("unknown peer role " + b);
  }
}
