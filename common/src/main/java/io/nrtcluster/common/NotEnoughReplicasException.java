package io.nrtcluster.common;

import java.util.List;

/**
 * A refresh or commit asked for a replicated acknowledgement, and fewer in-sync replicas than the
 * index's {@code minInSyncReplicas} installed its version within the in-sync timeout. Nothing is
 * acknowledged: the version may be published and searched (it holds the writes), but no replica
 * that may become primary is known to hold it, so a failover may lose it. Retrying the refresh once
 * replicas are back in sync acknowledges the same writes. Code {@link ErrorCode#NOT_ENOUGH_REPLICAS}.
 */
@Stable
public class NotEnoughReplicasException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final long version;
  private final int required;
  private final List<Integer> replicas;

  /**
   * @param version the version that was not acknowledged
   * @param required the index's {@code minInSyncReplicas}
   * @param replicas the in-sync replicas (node ids) that did install it, fewer than {@code required}
   */
  public NotEnoughReplicasException(String message, long version, int required, List<Integer> replicas) {
    super(ErrorCode.NOT_ENOUGH_REPLICAS, message);
    this.version = version;
    this.required = required;
    this.replicas = List.copyOf(replicas);
  }

  /** The version that was published but not acknowledged. */
  public long version() {
    return version;
  }

  /** How many in-sync replicas must hold a version before it is acknowledged. */
  public int required() {
    return required;
  }

  /** The in-sync replicas (node ids) that held it: fewer than {@link #required()}. */
  public List<Integer> replicas() {
    return replicas;
  }
}
