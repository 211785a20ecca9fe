package io.nrtcluster.replica;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NrtClusterException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;

/** Why a copy failed, as counted in {@link ReplicaStats#copyFailures(CopyFailureReason)}. */
@Experimental
public enum CopyFailureReason {
  /** A file's bytes did not match the primary's checksum or length (in transit or before install). */
  CHECKSUM_MISMATCH,
  /** The connection to the primary closed, timed out or could not be used. */
  CONNECTION_LOST,
  /** Local storage failed: disk full, an I/O error writing, syncing or renaming a file. */
  STORAGE,
  /** Anything else (the primary refused, a bug). */
  OTHER;

  /** The reason of {@code failure}: the first typed cause found in its cause chain. */
  static CopyFailureReason of(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof NrtClusterException e) {
        ErrorCode code = e.code();
        if (code == ErrorCode.CHECKSUM_MISMATCH) {
          return CHECKSUM_MISMATCH;
        }
        if (code == ErrorCode.STORAGE) {
          return STORAGE;
        }
        if (code == ErrorCode.CONNECTION || code == ErrorCode.TIMEOUT || code == ErrorCode.NODE_CLOSED) {
          return CONNECTION_LOST;
        }
      }
      if (t instanceof NodeCommunicationException || t instanceof ClosedChannelException || t instanceof SocketException) {
        return CONNECTION_LOST;
      }
    }
    return OTHER;
  }
}
