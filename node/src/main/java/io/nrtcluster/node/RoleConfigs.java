package io.nrtcluster.node;

import io.nrtcluster.primary.PrimaryConfig;
import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.transport.NodeAddress;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The settings of the {@link io.nrtcluster.primary.Primary} and {@link io.nrtcluster.replica.Replica}
 * one index of a host opens, derived from the host's configuration, so that both roles judge each
 * other by the same failure detector: replicas ping the primary every {@link
 * HostConfig#heartbeatInterval} and suspect it after {@link HostConfig#suspicionDelay} of silence;
 * the primary, closing (a step-down, a hand-off, the host leaving), does not wait for the copy of a
 * replica silent for that long either ({@link PrimaryConfig#peerSilence}). Without heartbeats (no
 * failover on suspicion) a quiet replica may be alive, so the primary waits for every open one.
 */
final class RoleConfigs {
  private final HostConfig host;
  private final IndexSettings settings;
  private final Path dataDir;

  RoleConfigs(HostConfig host, IndexSettings settings, Path dataDir) {
    this.host = host;
    this.settings = settings;
    this.dataDir = dataDir;
  }

  ReplicaConfig replica(int nodeId, NodeAddress primaryAddress) {
    return host.replicaTuning().applyTo(ReplicaConfig.builder())
        .nodeId(nodeId)
        .cluster(host.cluster())
        .index(settings.name())
        .dataDir(dataDir)
        .primary(primaryAddress)
        .reconnectMin(Duration.ofMillis(50))
        .reconnectMax(Duration.ofSeconds(2))
        .transport(host.transport())
        .build();
  }

  PrimaryConfig primary(int nodeId, long primaryGen, long forceVersion) {
    return PrimaryConfig.builder()
        .nodeId(nodeId)
        .cluster(host.cluster())
        .index(settings.name())
        .dataDir(dataDir)
        .bindHost(host.bindHost())
        .primaryGen(primaryGen)
        .forcePrimaryVersion(forceVersion)
        .transport(host.transport())
        .peerSilence(host.failoverOnSuspicion() ? host.suspicionDelay() : Duration.ZERO)
        .copyTree(settings.copyTree())
        .build();
  }
}
