package io.nrtcluster.node;

import io.nrtcluster.common.Stable;

/**
 * What a refresh's or commit's acknowledgement guarantees ({@link ClusterNode#refresh(Durability)}).
 *
 * <p>{@link #LOCAL}: the version is published (ZooKeeper recorded it while this node held its epoch)
 * and searched on this primary; replicas copy it after the call returns. It survives the loss of
 * any replica and a partition of the primary that heals with the primary still leading; it is lost
 * when the primary dies (or is deposed) before any replica that becomes primary installed it.
 *
 * <p>{@link #REPLICATED}: additionally, every replica of the index's in-sync set installed the
 * version (searches it), and at least {@code minInSyncReplicas} did, before the call returns; only
 * members of that set are ever elected (or promoted without force). It survives the crash (kill -9)
 * or partition of any one node, primary included, and of any number of nodes as long as one node
 * that held it when it was acknowledged (the primary or an in-sync replica) keeps running; it is lost
 * when every one of them loses its in-memory state at once (all crash: each restarts from its last
 * commit) or when an operator forces a promotion past the set.
 */
@Stable
public enum Durability {
  /** Acknowledged once published on the primary: today's acknowledgement, a failover may lose it. */
  LOCAL,
  /** Acknowledged once every in-sync replica (at least {@code minInSyncReplicas}) installed it. */
  REPLICATED
}
