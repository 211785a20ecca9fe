package io.nrtcluster.node;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.election.Role;
import io.nrtcluster.primary.Primary;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * What follows a role switch of one index on this node, outside the switch's lock and in this order:
 * a new primary leads the in-sync set (its first record written now, so replicated acknowledgements
 * need not wait for it), learns its replicas' published addresses (a replica is another's copy source
 * only there) and reports at once; another role stops the in-sync set; the host recounts what it
 * leads; then the metrics and every {@link RoleListener} hear of it (a failing listener is logged and
 * the others still hear).
 */
final class RoleChanges {
  private final ClusterNode node;
  private final NrtHost host;
  private final RoleSwitch roles;
  private final InSyncSet inSync;
  private final ProgressReporter progress;
  private final Supplier<IndexMetrics> metrics;
  private final NodeLog log;
  private final List<RoleListener> listeners = new CopyOnWriteArrayList<>();

  RoleChanges(ClusterNode node, NrtHost host, RoleSwitch roles, InSyncSet inSync, ProgressReporter progress,
      Supplier<IndexMetrics> metrics, NodeLog log) {
    this.node = node;
    this.host = host;
    this.roles = roles;
    this.inSync = inSync;
    this.progress = progress;
    this.metrics = metrics;
    this.log = log;
  }

  void addListener(RoleListener listener) {
    listeners.add(listener);
  }

  void switched(Role role, long gen) {
    Primary p = roles.primary();
    if (role == Role.PRIMARY && p != null) {
      inSync.lead(p, roles.election(), p.primaryGen());
      IndexElection election = roles.election();
      p.setPeerAddresses(id -> election == null ? null : election.cachedMembers().stream()
          .filter(m -> m.nodeId() == id && m.role() == Role.REPLICA).map(MemberInfo::address).findFirst().orElse(null));
    } else {
      inSync.stop();
    }
    if (role == Role.PRIMARY) {
      progress.report();
    }
    host.leadershipChanged();
    if (gen >= 0) {
      metrics.get().generationSeen(gen);
    }
    for (RoleListener l : listeners) {
      try {
        l.onRoleChange(node, role, gen);
      } catch (RuntimeException e) {
        log.warn("role listener failed", e);
      }
    }
  }
}
