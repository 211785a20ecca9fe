package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import java.util.List;

/**
 * An index's cluster state as ZooKeeper holds it now.
 *
 * @param cluster the cluster
 * @param index the index
 * @param primaryNodeId the current primary, or -1 when there is none
 * @param primaryGen the current primary's generation, or -1
 * @param members every live member, by node id
 */
@Experimental
public record IndexStatus(String cluster, String index, int primaryNodeId, long primaryGen, List<MemberStatus> members) {}
