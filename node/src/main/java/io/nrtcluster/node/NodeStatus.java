package io.nrtcluster.node;

import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.Role;

/**
 * A snapshot of one node's state for one index.
 *
 * @param nodeId the node
 * @param index the index
 * @param address replication address of the node
 * @param role what it does now
 * @param primaryGen generation it leads (primary) or follows (replica)
 * @param searchingVersion version it searches
 * @param commitVersion version of its last commit
 * @param primaryAddress address of the primary it knows, or null
 * @param copying whether a copy is running
 * @param lastCopyMillis wall-clock millis of its last completed copy, 0 if none
 * @param replayPosition application source position of the version it searches, or null
 * @param integrity its local files: whether it may lead, corrupt files not yet replaced, corrupt
 *     files found (at start, by the scrub) and quarantined since its replica opened; never null
 */
public record NodeStatus(
    int nodeId,
    String index,
    String address,
    Role role,
    long primaryGen,
    long searchingVersion,
    long commitVersion,
    String primaryAddress,
    boolean copying,
    long lastCopyMillis,
    String replayPosition,
    MemberIntegrity integrity) {
  public NodeStatus {
    integrity = integrity == null ? MemberIntegrity.CLEAN : integrity;
  }

  /** A status without what it knows of its files ({@link MemberIntegrity#CLEAN}). */
  public NodeStatus(int nodeId, String index, String address, Role role, long primaryGen, long searchingVersion,
      long commitVersion, String primaryAddress, boolean copying, long lastCopyMillis, String replayPosition) {
    this(nodeId, index, address, role, primaryGen, searchingVersion, commitVersion, primaryAddress, copying, lastCopyMillis,
        replayPosition, MemberIntegrity.CLEAN);
  }
}
