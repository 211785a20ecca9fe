package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDown;

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
 * @param candidate whether it may be elected now (false while it recovers from giving its epoch up)
 * @param lastStepDown the last time it gave its epoch up by itself (a lost index writer) and why,
 *     or null if it never did
 * @param belowDiskFloor whether its data directory is below the free-space floor now (a primary
 *     then refuses writes)
 * @param writable whether it takes writes now, as {@link ClusterNode#isWritablePrimary()} says
 * @param notWritable why it does not take writes, or null when it does
 */
@Experimental
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
    MemberIntegrity integrity,
    boolean candidate,
    StepDown lastStepDown,
    boolean belowDiskFloor,
    boolean writable,
    NotWritableReason notWritable) {
  public NodeStatus {
    integrity = integrity == null ? MemberIntegrity.CLEAN : integrity;
    notWritable = writable ? null : notWritable == null ? NotWritableReason.UNKNOWN : notWritable;
  }

  /** A status whose writability is what its role implies ({@link NotWritableReason#impliedBy}). */
  public NodeStatus(int nodeId, String index, String address, Role role, long primaryGen, long searchingVersion,
      long commitVersion, String primaryAddress, boolean copying, long lastCopyMillis, String replayPosition,
      MemberIntegrity integrity, boolean candidate, StepDown lastStepDown, boolean belowDiskFloor) {
    this(nodeId, index, address, role, primaryGen, searchingVersion, commitVersion, primaryAddress, copying, lastCopyMillis,
        replayPosition, integrity, candidate, lastStepDown, belowDiskFloor, NotWritableReason.impliedBy(role) == null,
        NotWritableReason.impliedBy(role));
  }

  /** A status without what it knows of its files ({@link MemberIntegrity#CLEAN}). */
  public NodeStatus(int nodeId, String index, String address, Role role, long primaryGen, long searchingVersion,
      long commitVersion, String primaryAddress, boolean copying, long lastCopyMillis, String replayPosition) {
    this(nodeId, index, address, role, primaryGen, searchingVersion, commitVersion, primaryAddress, copying, lastCopyMillis,
        replayPosition, MemberIntegrity.CLEAN, true, null, false);
  }
}
