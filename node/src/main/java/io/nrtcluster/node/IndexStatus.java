package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.election.InSyncRecord;
import java.util.List;

/**
 * An index's cluster state as ZooKeeper holds it now.
 *
 * @param cluster the cluster
 * @param index the index
 * @param primaryNodeId the current primary, or -1 when there is none
 * @param primaryGen the current primary's generation, or -1
 * @param members every live member, by node id
 * @param inSync the in-sync set the leading primary last stored ({@link InSyncRecord}: its primary,
 *     in-sync replicas, and why each departed replica left), or null when there is none (no primary
 *     of this release wrote one: every member counts as in sync)
 */
@Experimental
public record IndexStatus(String cluster, String index, int primaryNodeId, long primaryGen, List<MemberStatus> members,
    InSyncRecord inSync) {
  /** A status without an in-sync record (every member counts as in sync). */
  public IndexStatus(String cluster, String index, int primaryNodeId, long primaryGen, List<MemberStatus> members) {
    this(cluster, index, primaryNodeId, primaryGen, members, null);
  }
}
