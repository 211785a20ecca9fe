package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chaos harness's in-JVM ensemble. Its quorum peers run in the harness's own JVM, and ZooKeeper
 * ends the JVM (exit code 14) when a peer cannot bind its quorum port: a CI run of
 * WritePathFailoverProcessTest died so. A port from the kernel's ephemeral range can be taken by
 * any outgoing connection between being chosen and being bound (and again before a crashed server
 * restarts on it), so the ensemble's ports lie below that range.
 */
@Timeout(60)
class ZkEnsembleTest {
  @TempDir Path dir;

  @Test
  void everyPortOfTheEnsembleLiesBelowTheKernelsEphemeralRangeAndItServesAfterARestart() throws Exception {
    // readAllLines, not readString: procfs reports a size of 0 and readString then returns one byte.
    int lowestEphemeral = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0)
        .trim().split("\\s+")[0]);
    try (ZkEnsemble zk = new ZkEnsemble(dir, 3)) {
      assertThat(zk.ports()).hasSize(9).allSatisfy(p -> assertThat(p).isBetween(1024, lowestEphemeral - 1))
          .doesNotHaveDuplicates();
      zk.kill(1);
      zk.restart(1);
      try (CuratorFramework c = CuratorFrameworkFactory.newClient(zk.connectString(), new RetryOneTime(200))) {
        c.start();
        assertThat(c.blockUntilConnected(30, TimeUnit.SECONDS)).isTrue();
        c.create().forPath("/ensemble-test");
        assertThat(c.checkExists().forPath("/ensemble-test")).isNotNull();
      }
    }
  }
}
