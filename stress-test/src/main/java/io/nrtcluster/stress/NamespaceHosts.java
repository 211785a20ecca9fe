package io.nrtcluster.stress;

import io.nrtcluster.stress.net.CutMode;
import io.nrtcluster.stress.net.Host;
import io.nrtcluster.stress.net.NetLab;
import io.nrtcluster.stress.net.ZkProcessEnsemble;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The chaos cluster with hosts in network namespaces: a {@link NetLab} with one host per node
 * ({@code N<i>}) and per ZooKeeper server ({@code zk<j>}), the ensemble as server processes in
 * theirs ({@link ZkProcessEnsemble}), each node JVM in its own and listening on its address. The
 * links between hosts are cut and slowed through the lab; the harness, on the bridge, always
 * reaches every host, and every host reaches the harness's object store on the bridge's address. Closing the cluster closes the lab, which kills whatever still runs in it and
 * removes every namespace, veth and the bridge.
 */
final class NamespaceHosts implements Links {
  private static final int ZOOKEEPER_SERVERS = 3;
  private static final Duration ZOOKEEPER_START = Duration.ofSeconds(90);
  private final NetLab lab;

  private NamespaceHosts(NetLab lab) {
    this.lab = lab;
  }

  /** Makes the lab, starts the ensemble and the nodes in it; on failure removes everything it made. */
  static ChaosCluster start(ChaosConfig config, Path dir) throws Exception {
    List<String> names = new ArrayList<>();
    for (int id = 1; id <= config.nodes(); id++) {
      names.add("N" + id);
    }
    for (int j = 1; j <= ZOOKEEPER_SERVERS; j++) {
      names.add("zk" + j);
    }
    NetLab lab = NetLab.create("chaos seed " + config.seed(), names);
    ZkProcessEnsemble ensemble;
    try {
      List<Host> zkHosts = names.stream().filter(n -> n.startsWith("zk")).map(lab::host).toList();
      ensemble = ZkProcessEnsemble.start(zkHosts, dir.resolve("zookeeper"), ZOOKEEPER_START);
    } catch (IOException | RuntimeException e) {
      lab.close();
      throw e;
    }
    NamespaceHosts links = new NamespaceHosts(lab);
    return ChaosCluster.start(config, new Servers(ensemble), dir, id -> lab.host("N" + id).address(),
        (id, command) -> lab.host("N" + id).wrap(command), links, lab::close, lab.bridgeAddress());
  }

  @Override
  public void apply(LinkFault fault) throws IOException {
    CutMode mode = fault.silent() ? CutMode.DROP : CutMode.REJECT;
    for (LinkFault.Cut c : fault.cuts()) {
      lab.cut(lab.host(c.from()), lab.host(c.to()), mode);
    }
    if (fault.slowHost() != null) {
      lab.slow(lab.host(fault.slowHost()), fault.rateBitsPerSecond());
    }
  }

  @Override
  public void healAll() throws IOException {
    try {
      lab.heal();
    } finally {
      for (Host h : lab.slowed().keySet()) {
        lab.unslow(h);
      }
    }
  }

  /** The ensemble's processes as the fault runner crashes and restarts them. */
  private record Servers(ZkProcessEnsemble ensemble) implements ZooKeeperServers {
    @Override
    public String connectString() {
      return ensemble.connectString();
    }

    @Override
    public int size() {
      return ensemble.size();
    }

    @Override
    public void kill(int i) throws IOException {
      ensemble.kill(i);
    }

    @Override
    public void restart(int i) throws IOException {
      ensemble.restart(i);
    }

    @Override
    public void close() throws IOException {
      ensemble.close();
    }
  }
}
