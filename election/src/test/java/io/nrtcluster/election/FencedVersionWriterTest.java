package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
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

  private static NotPrimaryException notOurs() {
    return new NotPrimaryException("not ours (test)", null);
  }

  /** This session claims epoch {@code gen}: the epoch znode and the ephemeral primary znode. */
  private void claim(CuratorFramework c, long gen) throws Exception {
    if (c.checkExists().forPath(layout.epoch()) == null) {
      c.create().creatingParentsIfNeeded().forPath(layout.epoch(), FencedVersionWriter.bytes(gen));
    } else {
      c.setData().forPath(layout.epoch(), FencedVersionWriter.bytes(gen));
    }
    c.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), new byte[0]);
  }

  private String maxVersion() throws Exception {
    return new String(client.getData().forPath(layout.maxVersion()), StandardCharsets.UTF_8);
  }

  @Test
  void recordsOnlyWhileThisSessionHoldsThePrimaryZnode() throws Exception {
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    assertThatThrownBy(() -> writer.publish(5, 1, FencedVersionWriterTest::notOurs))
        .as("no primary znode").isInstanceOf(NotPrimaryException.class);

    claim(client, 1);
    writer.publish(5, 1, FencedVersionWriterTest::notOurs);
    writer.publish(3, 1, FencedVersionWriterTest::notOurs);
    assertThat(maxVersion()).isEqualTo("5");
    assertThatThrownBy(() -> writer.publish(6, 2, FencedVersionWriterTest::notOurs))
        .as("an epoch this session does not hold").isInstanceOf(NotPrimaryException.class);
  }

  /**
   * The primary resigns (a hand-off) while one of its publications is between its reads and its
   * write, and the successor claims the next epoch: the late write must fail. The successor's znode
   * has the same data version as the old one had, so a check of the primary znode alone passed it,
   * and the successor, which had chosen its start version before, later served that version number
   * with other contents (a chaos run in network namespaces found it).
   */
  @Test
  void aPublicationOvertakenByTheSuccessorsClaimIsRefused() throws Exception {
    try (CuratorFramework successor = TestZkClients.builder(zk.getConnectString()).build()) {
      successor.start();
      successor.blockUntilConnected();
      claim(client, 7);
      new FencedVersionWriter(client, layout).publish(2250, 7, FencedVersionWriterTest::notOurs);
      java.util.concurrent.atomic.AtomicBoolean handedOff = new java.util.concurrent.atomic.AtomicBoolean();
      FencedVersionWriter writer = new FencedVersionWriter(client, layout, () -> {
        if (handedOff.compareAndSet(false, true)) {
          try {
            client.delete().forPath(layout.primary()); // resign
            claim(successor, 8);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      });
      assertThatThrownBy(() -> writer.publish(2264, 7, FencedVersionWriterTest::notOurs))
          .isInstanceOf(NotPrimaryException.class);
      assertThat(handedOff).isTrue();
      assertThat(maxVersion()).as("the successor's start version was chosen above this").isEqualTo("2250");
    }
  }

  /**
   * The same overtaking, against a writer that published before: its next publication goes out at
   * once with the data versions its last one left (one round trip, no reads), and still fails, since
   * the successor's claim rewrote the epoch znode.
   */
  @Test
  void aPublicationWithKnownVersionsOvertakenByTheSuccessorsClaimIsRefused() throws Exception {
    try (CuratorFramework successor = TestZkClients.builder(zk.getConnectString()).build()) {
      successor.start();
      successor.blockUntilConnected();
      claim(client, 7);
      java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean();
      java.util.concurrent.atomic.AtomicInteger gaps = new java.util.concurrent.atomic.AtomicInteger();
      FencedVersionWriter writer = new FencedVersionWriter(client, layout, () -> {
        gaps.incrementAndGet();
        if (armed.compareAndSet(true, false)) {
          try {
            client.delete().forPath(layout.primary()); // resign
            claim(successor, 8);
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      });
      writer.publish(2250, 7, FencedVersionWriterTest::notOurs);
      writer.publish(2251, 7, FencedVersionWriterTest::notOurs);
      assertThat(maxVersion()).isEqualTo("2251");
      armed.set(true);
      gaps.set(0);
      assertThatThrownBy(() -> writer.publish(2264, 7, FencedVersionWriterTest::notOurs))
          .isInstanceOf(NotPrimaryException.class);
      assertThat(gaps).as("the known-versions attempt, then the full path's reads found the epoch moved").hasValue(1);
      assertThat(maxVersion()).isEqualTo("2251");
      assertThatThrownBy(() -> writer.publish(2265, 7, FencedVersionWriterTest::notOurs))
          .isInstanceOf(NotPrimaryException.class);
    }
  }

  /**
   * The primary is paused between its read of the epoch and its read of {@code maxVersion}; meanwhile
   * a successor claims the next epoch and publishes up to (and past) the version the paused primary
   * wants. The paused primary must not be told "published": the successor served that version number
   * with other contents. Issue 26: the path for a version at or below {@code maxVersion} answered
   * without any transaction.
   */
  @Test
  void aVersionAlreadyBelowMaxVersionIsConfirmedByTheEpochCheck() throws Exception {
    try (CuratorFramework successor = TestZkClients.builder(zk.getConnectString()).build()) {
      successor.start();
      successor.blockUntilConnected();
      claim(client, 7);
      new FencedVersionWriter(client, layout).publish(2250, 7, FencedVersionWriterTest::notOurs);
      AtomicBoolean overtaken = new AtomicBoolean();
      FencedVersionWriter writer = new FencedVersionWriter(client, layout, () -> {}, () -> {
        if (overtaken.compareAndSet(false, true)) {
          try {
            // The old session stays alive (a pause, not a crash), so its primary znode stays; the
            // successor took over through a hand-off of the epoch: it rewrites the epoch znode.
            successor.setData().forPath(layout.epoch(), FencedVersionWriter.bytes(8));
            successor.setData().forPath(layout.maxVersion(), FencedVersionWriter.bytes(2300));
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      });
      assertThatThrownBy(() -> writer.publish(2264, 7, FencedVersionWriterTest::notOurs))
          .isInstanceOf(NotPrimaryException.class);
      assertThat(overtaken).isTrue();
      assertThat(maxVersion()).isEqualTo("2300");
    }
  }

  /** A retry of this epoch's own publication at or below {@code maxVersion} is confirmed, not refused. */
  @Test
  void aRetryOfItsOwnPublicationIsConfirmed() throws Exception {
    claim(client, 4);
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    writer.publish(40, 4, FencedVersionWriterTest::notOurs);
    new FencedVersionWriter(client, layout).publish(40, 4, FencedVersionWriterTest::notOurs);
    writer.publish(39, 4, FencedVersionWriterTest::notOurs);
    assertThat(maxVersion()).isEqualTo("40");
  }

  /** Another writer of {@code maxVersion} (a test here) makes the known versions stale: the full path records the version. */
  @Test
  void staleKnownVersionsFallBackToTheFullPath() throws Exception {
    claim(client, 3);
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    writer.publish(10, 3, FencedVersionWriterTest::notOurs);
    client.setData().forPath(layout.maxVersion(), FencedVersionWriter.bytes(20));
    writer.publish(15, 3, FencedVersionWriterTest::notOurs);
    assertThat(maxVersion()).as("never lowered").isEqualTo("20");
    writer.publish(25, 3, FencedVersionWriterTest::notOurs);
    assertThat(maxVersion()).isEqualTo("25");
    writer.publish(26, 3, FencedVersionWriterTest::notOurs);
    assertThat(maxVersion()).isEqualTo("26");
  }

  @Test
  void anUnreachableZooKeeperIsNotPublishedRatherThanNotPrimary() throws Exception {
    claim(client, 1);
    FencedVersionWriter writer = new FencedVersionWriter(client, layout);
    writer.publish(5, 1, FencedVersionWriterTest::notOurs);

    zk.stop();
    assertThatThrownBy(() -> writer.publish(6, 1, FencedVersionWriterTest::notOurs))
        .isInstanceOfSatisfying(NotPublishedException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.NOT_PUBLISHED));
  }
}
