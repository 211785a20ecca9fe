package io.nrtcluster.node;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.MemberIntegrity;
import io.nrtcluster.election.NotWritableReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.Standing;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What one index on this node tells the cluster and its operators about its progress: the {@link
 * MemberInfo} in its member znode (which the election ranks candidates by) and the {@link
 * NodeStatus} snapshot.
 *
 * <p>Guarantees: once started, the member znode is brought up to date about every 100 ms, and only
 * written when the progress changed; it is read from one {@link IndexSnapshot}, so it never mixes
 * two roles and never waits for a switch, a copy or the network; a failed report is logged at debug and retried by the next one, never
 * stopping the schedule; nothing is reported after the node closed. Reports run on a serial
 * executor of the host's tick pool ({@link ExecutorSource.Pool#TICK}), so a report (and the
 * periodic checks it runs) must never wait.
 */
final class ProgressReporter {
  private static final long PERIOD_MILLIS = 100;
  private static final MemberIntegrity NO_INDEX_OPEN = new MemberIntegrity(false, List.of(), 0, 0, 0);

  private final NrtHost host;
  private final String index;
  private final RoleSwitch roles;
  private final NodeLog log;
  private final Runnable sample;
  private final DiskFloor floor;
  private final Writability writability;
  private final ScheduledExecutorService executor;
  private volatile MemberInfo lastReported;

  /**
   * @param sample run after each report, for the node's periodic checks and sampled meters
   * @param floor the data directory's free-space floor, for the status
   * @param writability whether the index takes writes, for the member record and the status
   */
  ProgressReporter(NrtHost host, String index, RoleSwitch roles, NodeLog log, Runnable sample, DiskFloor floor,
      Writability writability) {
    this.floor = floor;
    this.writability = writability;
    this.host = host;
    this.index = index;
    this.roles = roles;
    this.log = log;
    this.sample = sample;
    this.executor = host.executors().serial(ExecutorSource.Pool.TICK, "nrt-report-" + host.nodeId() + "-" + index);
  }

  void start() {
    executor.scheduleWithFixedDelay(this::report, PERIOD_MILLIS, PERIOD_MILLIS, TimeUnit.MILLISECONDS);
  }

  void stop() {
    executor.shutdownNow();
  }

  /** Publishes this node's progress to its member znode when it changed. */
  void report() {
    IndexElection election = roles.election();
    if (roles.isClosed() || election == null) {
      return;
    }
    try {
      MemberInfo info = memberInfo();
      if (!info.equals(lastReported)) {
        lastReported = info;
        election.update(info);
      }
      sample.run();
    } catch (RuntimeException e) {
      log.debug("progress report failed: {}", e.toString());
    }
  }

  /** This node's progress from one snapshot of the index's state: never waits for a switch or a copy. */
  MemberInfo memberInfo() {
    IndexSnapshot s = roles.snapshot();
    Primary p = s.primary();
    Replica r = s.replica();
    Role role = s.role();
    String address = host.address().toString();
    NotWritableReason notWritable = writability.reason(s);
    if (p != null) {
      return new MemberInfo(host.nodeId(), address, role, p.primaryGen(), p.version(), p.lastCommitVersion(), false, 0, null, 0,
          MemberIntegrity.CLEAN, true, null, notWritable, p.incarnation());
    }
    if (r != null) {
      return new MemberInfo(host.nodeId(), address, role, r.primaryGen(), r.searchingVersion(),
          r.lastCommitVersion(), r.isCopying(), r.stats().lastCopyCompletedMillis(), null,
          r.stats().consecutiveCopyFailures(), integrity(r), true, null, notWritable, r.incarnation());
    }
    // No index open (starting, verifying its files, promoting, closing): not a candidate, explicitly,
    // rather than merely the lowest rank.
    return new MemberInfo(host.nodeId(), address, role, s.generation(), -1, -1, false, 0, null, 0, NO_INDEX_OPEN, true, null,
        notWritable);
  }

  /**
   * What the replica knows of its files: eligible unless it holds a corrupt file it has not
   * replaced; counters since it opened. A replica that reopens its index for another reason (a
   * resync) stays eligible: it may be the only candidate left, and it ranks by its versions anyway.
   */
  static MemberIntegrity integrity(Replica r) {
    return new MemberIntegrity(true, r.corruptFiles(), r.stats().corruptFilesAtStart(),
        r.stats().corruptFilesByScrub(), r.stats().quarantinedFiles());
  }

  NodeStatus status() {
    MemberInfo m = memberInfo();
    String position;
    try {
      position = roles.replayPosition();
    } catch (IOException | RuntimeException e) {
      // A status is a best-effort picture; ClusterNode.replayPosition() reports the failure itself.
      position = null;
    }
    Standing standing = roles.snapshot().standing();
    return new NodeStatus(host.nodeId(), index, host.address().toString(), m.role(), m.primaryGen(),
        m.searchingVersion(), m.commitVersion(), roles.primaryAddress(), m.copying(), m.lastCopyMillis(), position,
        m.integrity(), standing.candidate(), standing.lastStepDown(), floor.isBelow(), m.writable(), m.notWritable());
  }
}
