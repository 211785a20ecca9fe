package io.nrtcluster.examples.search;

/**
 * Every error the HTTP API answers with: its HTTP status and the stable {@code error} string of the
 * JSON body. Clients branch on {@link #code()} (or the status), never on the message.
 */
public enum ApiError {
  /** A malformed request: bad JSON, a bad query, a bad parameter or cursor. */
  BAD_REQUEST(400, "bad_request"),
  /** No such route, or an index this service does not host. */
  NOT_FOUND(404, "not_found"),
  /** The route exists but not for this HTTP method. */
  METHOD_NOT_ALLOWED(405, "method_not_allowed"),
  /** A point-in-time newer than this node searches yet: retry, or ask another node. */
  VERSION_AHEAD(409, "version_ahead"),
  /** A point-in-time this node no longer holds (or never held): start paging again without a version. */
  VERSION_EXPIRED(410, "version_expired"),
  /** The request body is larger than the configured maximum. */
  PAYLOAD_TOO_LARGE(413, "payload_too_large"),
  /** No primary is known or reachable right now (e.g. during a failover): retry later. */
  NO_PRIMARY(503, "no_primary"),
  /**
   * This node is closing, cannot reach what it needs, or (as the primary) could not publish a refresh
   * because ZooKeeper did not record it: retry.
   */
  UNAVAILABLE(503, "unavailable"),
  /**
   * The primary's index writer is lost (a corrupt segment, a full disk, a fatal I/O error): it gave
   * its epoch up and another node takes over; the message names the cause. Retry shortly.
   */
  WRITER_LOST(503, "writer_lost"),
  /**
   * The primary's data directory is below its free-space floor: writes are refused (searches and
   * refreshes go on) until an operator frees space; retrying at once does not help.
   */
  INSUFFICIENT_STORAGE(507, "insufficient_storage"),
  /**
   * A document of the page could not be read or its stored source did not decode (bit rot, most
   * likely): the node is checking the segment's files and copies a corrupt one again (or, as the
   * primary, steps down). Retry shortly, or on another node.
   */
  CORRUPT_READ(503, "corrupt_read"),
  /**
   * A {@code refresh=true} write asked for a replicated acknowledgement and fewer in-sync replicas
   * than the index's {@code minInSyncReplicas} installed its version in time: the documents are
   * written and the version is published (searchable), but it is not acknowledged, because a failover
   * may lose it. The body names {@code version}, {@code required} and the {@code replicas} holding
   * it. Retry once replicas are back (the same batch is applied once: documents replace by id), or
   * ask for {@code durability=local}.
   */
  NOT_ENOUGH_REPLICAS(503, "not_enough_replicas"),
  /** A bounded wait ran out (e.g. {@code min_version} never became searchable here). */
  TIMEOUT(504, "timeout"),
  /** A failure of the service itself, not of the request. */
  INTERNAL(500, "internal");

  private final int status;
  private final String code;

  ApiError(int status, String code) {
    this.status = status;
    this.code = code;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }
}
