package io.nrtcluster.stress.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three real ZooKeeper server processes, each in its own lab host: the harness's client (root
 * namespace) is served through a crash, a restart and a partition of one server, which the partition
 * really cuts off; closing leaves no process and no name behind.
 */
class ZkProcessEnsembleTest {
  private static final Duration WAIT = Duration.ofSeconds(30);
  @TempDir Path dir;
  private NetLab lab;
  private ZkProcessEnsemble zk;
  private final List<CuratorFramework> clients = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    clients.forEach(CuratorFramework::close);
    if (zk != null) {
      zk.close();
    }
    if (lab != null) {
      lab.close();
    }
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void servesThroughACrashARestartAndAPartitionOfOneServer() throws Exception {
    Assumptions.assumeTrue(NetLab.rootAvailable(), "network namespaces need root and iproute2");
    lab = NetLab.create("zk-test", "zk1", "zk2", "zk3");
    zk = ZkProcessEnsemble.start(lab.hosts(), dir, Duration.ofSeconds(60));
    assertThat(zk.size()).isEqualTo(3);
    assertThat(zk.connectString()).isEqualTo(lab.hosts().stream()
        .map(h -> h.address() + ":2181").reduce((x, y) -> x + "," + y).orElseThrow());
    CuratorFramework client = client(zk.connectString());
    client.create().forPath("/t", bytes("v1"));

    zk.kill(0);
    assertThat(zk.isAlive(0)).isFalse();
    assertThat(lab.pids(lab.host("zk1"))).isEmpty();
    client.setData().forPath("/t", bytes("v2"));
    assertThat(read(client, "/t")).isEqualTo("v2");

    zk.restart(0);
    assertThat(read(client(zk.connectString(0)), "/t")).as("the restarted server caught up").isEqualTo("v2");

    Host cutOff = zk.host(2);
    lab.partition(Set.of(cutOff), Set.of(zk.host(0), zk.host(1)));
    client.setData().forPath("/t", bytes("v3"));
    assertThat(read(client, "/t")).isEqualTo("v3");
    await("zk3 stops serving without a quorum").atMost(WAIT)
        .until(() -> !ZkProbe.serves(zk.connectString(2), Duration.ofSeconds(1)));
    lab.heal();
    await("zk3 serves again").atMost(WAIT).until(() -> ZkProbe.serves(zk.connectString(2), Duration.ofSeconds(2)));
    CuratorFramework third = client(zk.connectString(2));
    await().atMost(WAIT).until(() -> {
      third.sync().forPath("/t");
      return read(third, "/t");
    }, "v3"::equals);

    assertThat(Files.list(zk.dataDir(1).resolve("version-2")))
        .anyMatch(p -> p.getFileName().toString().startsWith("log."));
    assertThat(Files.readString(zk.logFile(0))).contains("---- start ----");
    List<Long> pids = List.of(zk.pid(0), zk.pid(1), zk.pid(2));
    String mark = lab.bridge().substring("nrtcb".length());
    zk.close();
    lab.close();
    assertThat(pids).allMatch(pid -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
    Teardown t = new Teardown(NetLab.ipTool());
    assertThat(t.namespaces()).noneMatch(n -> n.contains(mark));
    assertThat(t.links()).noneMatch(n -> n.contains(mark));
  }

  private CuratorFramework client(String connectString) {
    CuratorFramework c = CuratorFrameworkFactory.newClient(connectString, 4_000, 5_000,
        new ExponentialBackoffRetry(100, 10));
    clients.add(c);
    c.start();
    return c;
  }

  private static String read(CuratorFramework c, String path) throws Exception {
    return new String(c.getData().forPath(path), StandardCharsets.UTF_8);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
