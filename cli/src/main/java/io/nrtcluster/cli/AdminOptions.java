package io.nrtcluster.cli;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.node.ClusterAdmin;
import java.time.Duration;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Options every operator command shares: where ZooKeeper is, its credentials, and which cluster to talk about. */
final class AdminOptions {
  @Option(names = "--zk", required = true, paramLabel = "HOST:PORT", description = "ZooKeeper connect string.")
  String zk;

  @Option(names = "--cluster", required = true, paramLabel = "C", description = "Cluster name.")
  String cluster;

  @Option(names = "--zk-timeout", defaultValue = "10s", converter = DurationConverter.class, paramLabel = "DURATION",
      description = "How long to wait for ZooKeeper (default: ${DEFAULT-VALUE}).")
  Duration zkTimeout;

  @Mixin ZooKeeperAuthOptions zkAuth;

  ClusterAdmin connect() throws ConnectionException {
    return ClusterAdmin.connect(zk, zkTimeout, zkAuth.auth());
  }
}
