package io.nrtcluster.stress;

import io.nrtcluster.common.QuietPorts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.util.ServiceUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real three-server ZooKeeper ensemble (quorum peers from curator-test) in the harness's JVM, with
 * its data under the report directory. One server at a time can crash and come back; the other two
 * keep the quorum. Its ports lie below the kernel's ephemeral range ({@link QuietPorts}), so no
 * outgoing connection takes one between its choice and a (re)start; a server that still cannot bind
 * is logged, never allowed to end the harness's JVM.
 */
final class ZkEnsemble implements ZooKeeperServers {
  /** Short ticks, so session timeouts of a few seconds are honoured (the minimum is two ticks). */
  private static final int TICK_MILLIS = 500;
  private static final Logger LOG = LoggerFactory.getLogger(ZkEnsemble.class);
  private final TestingCluster cluster;
  private final List<InstanceSpec> servers;

  ZkEnsemble(Path dir, int size) throws Exception {
    // A peer that cannot bind its quorum port asks for System.exit(14): in this JVM that would end
    // the whole run without a report. Logged instead; the other two servers keep the quorum.
    ServiceUtils.setSystemExitProcedure(code -> LOG.error("a ZooKeeper server of the ensemble asked to exit with code {}"
        + " (14: it could not bind its quorum port); the run goes on with the others", code));
    List<Integer> ports = QuietPorts.take(3 * size);
    List<InstanceSpec> specs = new ArrayList<>();
    for (int i = 1; i <= size; i++) {
      Path data = Files.createDirectories(dir.resolve("zk" + i));
      int p = 3 * (i - 1);
      specs.add(new InstanceSpec(data.toFile(), ports.get(p), ports.get(p + 1), ports.get(p + 2), false, i, TICK_MILLIS, -1));
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
