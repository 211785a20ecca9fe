package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fenced version record tells apart "this node is not the primary" (another session holds the
 * primary znode) from "the version could not be recorded" (ZooKeeper unreachable): only the first is
 * a {@link NotPrimaryException}.
 */
@Timeout(60)
class FencedVersionWriterTest {
  private final ZkLayout layout = ZkLayout.of("c1", "docs");
  private TestingServer zk;
  private CuratorFramework client;

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    client = TestZkClients.builder(zk.getConnectString()).build();
    client.start();
    client.blockUntilConnected();
  }

  @AfterEach
  void stop() throws Exception {
    client.close();
    zk.close();
  }

  @Test
  void recordsOnlyWhileThisSessionHoldsThePrimaryZnode() throws Exception {
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    assertThatThrownBy(() -> writer.publish(5, () -> new NotPrimaryException("not ours (test)", null)))
        .as("no primary znode").isInstanceOf(NotPrimaryException.class);

    client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), new byte[0]);
    writer.publish(5, () -> new NotPrimaryException("not ours (test)", null));
    writer.publish(3, () -> new NotPrimaryException("not ours (test)", null));
    assertThat(new String(client.getData().forPath(layout.maxVersion()), StandardCharsets.UTF_8)).isEqualTo("5");
  }

  @Test
  void anUnreachableZooKeeperIsNotPublishedRatherThanNotPrimary() throws Exception {
    client.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), new byte[0]);
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    writer.publish(5, () -> new NotPrimaryException("not ours (test)", null));

    zk.stop();
    assertThatThrownBy(() -> writer.publish(6, () -> new NotPrimaryException("not ours (test)", null)))
        .isInstanceOfSatisfying(NotPublishedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_PUBLISHED));
  }
}
