package io.nrtcluster.common;

/**
 * Every kind of failure nrtcluster reports, with a stable wire code. Codes are never reused; a
 * receiver that does not know a code treats it as {@link #INTERNAL}.
 */
@Stable
public enum ErrorCode {
  /** Anything unexpected on the remote side. */
  INTERNAL(1),
  /** A frame or message that does not follow the protocol (too long, truncated, unknown type). */
  PROTOCOL(2),
  /** The peer speaks an incompatible protocol version. */
  PROTOCOL_VERSION(3),
  /** The peer belongs to another cluster. */
  WRONG_CLUSTER(4),
  /** The peer does not host the requested index. */
  UNKNOWN_INDEX(5),
  /** A file name that is not in a copy-state or merge pre-copy the primary still holds, or unsafe. */
  FILE_NOT_SERVABLE(6),
  /** A copy-state id the primary does not (or no longer) hold. */
  UNKNOWN_COPY_STATE(7),
  /** A message from a primary generation older than one already seen. */
  STALE_PRIMARY_GENERATION(8),
  /** The node is closing or closed. */
  NODE_CLOSED(9),
  /** The node is not the primary for this index. */
  NOT_PRIMARY(10),
  /** Received bytes do not match the file's Lucene checksum or length. */
  CHECKSUM_MISMATCH(11),
  /** A bounded wait ran out. */
  TIMEOUT(12),
  /** The connection to the peer closed or could not be made. */
  CONNECTION(13),
  /** Too many requests in flight on one connection. */
  TOO_MANY_REQUESTS(14),
  /** Local storage failed (disk full, I/O error). */
  STORAGE(15),
  /** A replica's files conflict with a new primary's and it must resynchronize from scratch. */
  RESYNC_REQUIRED(16),
  /** An operator named a node that is not a live member of the index. */
  UNKNOWN_NODE(17),
  /** An operator's request was refused before anything changed (see the message). */
  REFUSED(18),
  /** An operator's promotion did not complete; nothing changed (see the message). */
  PROMOTION_FAILED(19),
  /**
   * ZooKeeper refused an operation on the cluster's znodes: missing or wrong credentials, or ACLs
   * that do not grant this identity every permission.
   */
  ZOOKEEPER_ACCESS_DENIED(20),
  /** ZooKeeper authentication is on but some of the cluster's znodes are still open to anyone. */
  ZOOKEEPER_OPEN_ACL(21),
  /**
   * The TLS handshake with the peer failed: no certificate or one the trust anchors did not sign,
   * a hostname that does not match, or TLS on one side only. Never sent on the wire (it happens
   * before the protocol starts); each side reports it locally.
   */
  TLS_HANDSHAKE(22),
  /** This node's TLS settings cannot be used: a key, certificate or store is missing, unreadable or invalid. */
  TLS_CONFIG(23),
  /** A lifecycle or role transition the state table does not allow (a bug, never silently applied). */
  ILLEGAL_TRANSITION(30),
  /** The index has no searcher right now (a replica resyncing); retry. */
  INDEX_UNAVAILABLE(31),
  /**
   * The primary could not publish a version (yet): its publication is under way, or failed because
   * ZooKeeper could not record it. The node may well still be the primary (that is {@link
   * #NOT_PRIMARY}); the version is not visible to anyone until it is published: retry.
   */
  NOT_PUBLISHED(32),
  /**
   * A local index file failed its checksum and could not be replaced from a primary yet: the node
   * neither ranks in an election nor is promoted by hand without {@code --force}. The message names
   * the file.
   */
  CORRUPT_LOCAL_FILE(40),
  /**
   * The primary's Lucene writer hit a tragic event (a corrupt segment, a full disk, a fatal I/O
   * error) and closed for good: the node acknowledges no more writes, gives its epoch up and rejoins
   * as a replica. Retry against the next primary once one is elected.
   */
  WRITER_LOST(41),
  /**
   * The primary's data directory has less free space than its configured floor: writes are refused
   * before Lucene fails in a flush or merge; they resume by themselves when space returns. Retrying
   * at once does not help.
   */
  INSUFFICIENT_STORAGE(42),
  /**
   * A read of a document failed on bytes that may be corrupt (Lucene's {@code CorruptIndexException},
   * an unexpected error of a codec, or the application's report that a stored value cannot be
   * decoded): the node checks the segment's files at once and repairs what fails (a replica
   * quarantines the file and copies it again; a primary steps down). Retry shortly, here or on
   * another node; the message names the segment.
   */
  CORRUPT_INDEX_READ(43),
  /**
   * A replicated acknowledgement was asked for, but fewer replicas than the index's {@code
   * minInSyncReplicas} hold the version (Kafka's {@code NotEnoughReplicas}): the version may be
   * published and searchable, but it is not acknowledged, and a failover may lose it. Retry once
   * replicas are back in sync.
   */
  NOT_ENOUGH_REPLICAS(44),
  /**
   * The object store refused this identity for the configured bucket (wrong or missing credentials,
   * no permission) or the bucket does not exist. Raised at once, never retried: the configuration
   * must be fixed. The message names the bucket.
   */
  OBJECT_STORE_ACCESS(50),
  /**
   * The object store could not be reached, or kept failing (5xx, throttling, dropped connections)
   * through every configured retry. Retrying later may succeed.
   */
  OBJECT_STORE_UNAVAILABLE(51),
  /**
   * A backup object failed verification: a manifest that does not parse, a stored file whose bytes
   * do not match its Lucene checksum or length, or a file a manifest names that is missing. The
   * message names the object; nothing of it was installed.
   */
  BACKUP_CORRUPT(52),
  /** No backup manifest matches the request (none at all, or not the requested version). */
  BACKUP_NOT_FOUND(53),
  /**
   * A backup gave up before writing its manifest (it outlived its lease, or the service closed); no
   * manifest names its files, and retention removes what it uploaded.
   */
  BACKUP_ABANDONED(54);

  private final int wire;

  ErrorCode(int wire) {
    this.wire = wire;
  }

  /** The number sent on the wire for this code. */
  public int wire() {
    return wire;
  }

  /** The code for a wire number; unknown numbers map to {@link #INTERNAL}. */
  public static ErrorCode fromWire(int wire) {
    for (ErrorCode c : values()) {
      if (c.wire == wire) {
        return c;
      }
    }
    return INTERNAL;
  }
}
