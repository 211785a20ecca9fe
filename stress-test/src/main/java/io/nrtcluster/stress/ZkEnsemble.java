package io.nrtcluster.stress;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * A real three-server ZooKeeper ensemble (quorum peers from curator-test) in the harness's JVM, with
 * its data under the report directory. One server at a time can crash and come back; the other two
 * keep the quorum.
 */
final class ZkEnsemble implements ZooKeeperServers {
  /** Short ticks, so session timeouts of a few seconds are honoured (the minimum is two ticks). */
  private static final int TICK_MILLIS = 500;
  private final TestingCluster cluster;
  private final List<InstanceSpec> servers;

  ZkEnsemble(Path dir, int size) throws Exception {
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      Path data = Files.createDirectories(dir.resolve("zk" + i));
      specs.add(new InstanceSpec(data.toFile(), -1, -1, -1, false, i, TICK_MILLIS, -1));
    }
    this.servers = List.copyOf(specs);
    this.cluster = new TestingCluster(specs);
    cluster.start();
  }

  /** Every port the servers listen on (client, quorum and election port of each). */
  List<Integer> ports() {
    List<Integer> out = new ArrayList<>();
    for (InstanceSpec s : servers) {
      out.add(s.getPort());
      out.add(s.getQuorumPort());
      out.add(s.getElectionPort());
    }
    return out;
  }

  @Override
  public String connectString() {
    return cluster.getConnectString();
  }

  @Override
  public int size() {
    return servers.size();
  }

  /** Crashes server {@code i} (0-based). */
  @Override
  public void kill(int i) throws Exception {
    cluster.killServer(servers.get(i));
  }

  @Override
  public void restart(int i) throws Exception {
    cluster.restartServer(servers.get(i));
  }

  @Override
  public void close() throws IOException {
    cluster.close();
  }
}
