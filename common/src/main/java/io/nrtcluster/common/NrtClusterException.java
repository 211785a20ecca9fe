package io.nrtcluster.common;

import java.io.IOException;
import java.util.List;

/**
 * Base of every error nrtcluster raises on purpose. Callers branch on the subtype (or on {@link
 * #code()}), never on the message text.
 *
 * <p>It is an {@link IOException} because Lucene's replication hooks ({@code newCopyJob}, {@code
 * commit}, ...) only let I/O errors through; a failed replication step is an I/O failure to them.
 */
@Stable
public class NrtClusterException extends IOException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;

  /**
   * Creates one with its {@code code} (the one the wire carries) and {@code message}, which says what failed.
   */
  public NrtClusterException(ErrorCode code, String message) {
    super(message);
    this.code = code;
  }

  /**
   * Creates one with its {@code code} (the one the wire carries), {@code message}, which says what
   * failed, and the failure that caused it.
   */
  public NrtClusterException(ErrorCode code, String message, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** The machine-readable kind of this error; stable across versions and sent on the wire. */
  public ErrorCode code() {
    return code;
  }

  /**
   * Rebuilds the typed exception for an error code received from a remote node, so that a caller
   * on this side can catch the same subtype the remote side raised.
   */
  public static NrtClusterException fromRemote(ErrorCode code, String message) {
    String text = "remote: " + message;
    return switch (code) {
      case STALE_PRIMARY_GENERATION -> new StalePrimaryGenerationException(text);
      case FILE_NOT_SERVABLE -> new FileNotServableException(text);
      case WRONG_CLUSTER, UNKNOWN_INDEX, PROTOCOL_VERSION -> new ClusterMismatchException(code, text);
      case PROTOCOL -> new ProtocolException(text);
      case NODE_CLOSED -> new NodeClosedException(text);
      case CHECKSUM_MISMATCH -> new ChecksumMismatchException(text);
      case NOT_PRIMARY -> new NotPrimaryException(text, null);
      case NOT_PUBLISHED -> new NotPublishedException(text);
      case NOT_ENOUGH_REPLICAS -> new NotEnoughReplicasException(text, -1, -1, List.of());
      case WRITER_LOST -> new WriterLostException(text, null);
      case INSUFFICIENT_STORAGE -> new InsufficientStorageException(text, null, -1, -1);
      case CORRUPT_INDEX_READ -> new CorruptIndexReadException(text, null, null);
      case ZOOKEEPER_ACCESS_DENIED, ZOOKEEPER_OPEN_ACL -> new ZooKeeperAccessException(code, text);
      default -> new RemoteException(code, text);
    };
  }
}
