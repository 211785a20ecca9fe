package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDown;

/**
 * One node's row in an index's status, as an operator sees it.
 *
 * @param nodeId the node
 * @param address its replication address
 * @param role its role
 * @param primaryGen generation it leads or follows
 * @param searchingVersion version it searches
 * @param commitVersion version of its last commit
 * @param versionsBehind how far its searching version is below the primary's (0 for the primary,
 *     -1 when there is no primary)
 * @param millisSinceLastCopy time since its last completed copy, -1 if never
 * @param copying whether a copy is running
 * @param consecutiveCopyFailures NRT copies that failed since its last successful one: rising while
 *     the primary publishes means it is stuck on its last good searcher (its WARN lines say why)
 * @param integrity what it reports of its local files: whether it may lead, the corrupt files it has
 *     not replaced yet, corrupt files found (at start, by the scrub) and quarantined; never null (an
 *     older node's record: {@link MemberIntegrity#CLEAN})
 * @param candidate whether it may be elected now (false while it recovers from giving its epoch up)
 * @param lastStepDown the last time it gave its epoch up by itself (a lost index writer) and why,
 *     or null if it never did
 * @param writable whether it takes writes now (its record's word; an older node's: whether it is primary)
 * @param notWritable why it does not take writes, or null when it does
 * @param inSync whether the index's in-sync set names it in its current incarnation (the primary
 *     included), so that it may be elected or promoted without force; true when there is no
 *     in-sync record
 */
@Experimental
public record MemberStatus(
    int nodeId,
    String address,
    Role role,
    long primaryGen,
    long searchingVersion,
    long commitVersion,
    long versionsBehind,
    long millisSinceLastCopy,
    boolean copying,
    long consecutiveCopyFailures,
    MemberIntegrity integrity,
    boolean candidate,
    StepDown lastStepDown,
    boolean writable,
    NotWritableReason notWritable,
    boolean inSync) {
  public MemberStatus {
    integrity = integrity == null ? MemberIntegrity.CLEAN : integrity;
    notWritable = writable ? null : notWritable == null ? NotWritableReason.UNKNOWN : notWritable;
  }

  /** A row of a member counted as in sync (no in-sync record known). */
  public MemberStatus(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      long versionsBehind, long millisSinceLastCopy, boolean copying, long consecutiveCopyFailures, MemberIntegrity integrity,
      boolean candidate, StepDown lastStepDown, boolean writable, NotWritableReason notWritable) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, versionsBehind, millisSinceLastCopy, copying,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, writable, notWritable, true);
  }

  /** A row whose writability is what its role implies ({@link NotWritableReason#impliedBy}). */
  public MemberStatus(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      long versionsBehind, long millisSinceLastCopy, boolean copying, long consecutiveCopyFailures, MemberIntegrity integrity,
      boolean candidate, StepDown lastStepDown) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, versionsBehind, millisSinceLastCopy, copying,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, NotWritableReason.impliedBy(role) == null,
        NotWritableReason.impliedBy(role));
  }

  /** A row without copy failures or what the node knows of its files ({@link MemberIntegrity#CLEAN}). */
  public MemberStatus(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      long versionsBehind, long millisSinceLastCopy, boolean copying) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, versionsBehind, millisSinceLastCopy, copying,
        0, MemberIntegrity.CLEAN, true, null);
  }
}
