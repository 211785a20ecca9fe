package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The in-sync set's znode is changed only by the primary of the current epoch, and a claim decided on
 * one version of it fails once it changed: real ZooKeeper (curator-test), two sessions.
 */
@Timeout(60)
class InSyncStoreTest {
  private final ZkLayout layout = ZkLayout.of("c1", "docs");
  private TestingServer zk;
  private CuratorFramework a;
  private CuratorFramework b;

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    a = TestZkClients.builder(zk.getConnectString()).build();
    b = TestZkClients.builder(zk.getConnectString()).build();
    a.start();
    b.start();
    a.blockUntilConnected();
    b.blockUntilConnected();
  }

  @AfterEach
  void stop() throws Exception {
    a.close();
    b.close();
    zk.close();
  }

  private static NotPrimaryException notOurs() {
    return new NotPrimaryException("not ours (test)", null);
  }

  /** Session {@code c} claims epoch {@code gen}, replacing whatever primary znode there was. */
  private void claim(CuratorFramework c, long gen) throws Exception {
    if (c.checkExists().forPath(layout.epoch()) == null) {
      c.create().creatingParentsIfNeeded().forPath(layout.epoch(), FencedVersionWriter.bytes(gen));
    } else {
      c.setData().forPath(layout.epoch(), FencedVersionWriter.bytes(gen));
    }
    if (c.checkExists().forPath(layout.primary()) != null) {
      c.delete().forPath(layout.primary());
    }
    c.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(layout.primary(), new byte[0]);
  }

  @Test
  void aStalePrimaryCannotChangeTheInSyncSet() throws Exception {
    InSyncStore old = new InSyncStore(a, layout, () -> {});
    claim(a, 1);
    InSyncRecord.Stored empty = old.read();
    assertThat(empty.record()).as("no primary wrote one yet").isNull();
    InSyncRecord.Stored first = old.replace(InSyncRecord.start(1, 1, 11).with(2, 22).with(3, 33), empty.zkVersion(), 1,
        InSyncStoreTest::notOurs);
    assertThat(old.read().record().members()).containsOnlyKeys(2, 3);

    // Node 2 takes epoch 2 (the replicas deposed node 1, whose session lives on).
    claim(b, 2);
    InSyncRecord removal = first.record().without(2, new InSyncRecord.Departure(OutOfSyncReason.LAGGED, 9, 0));
    assertThatThrownBy(() -> old.replace(removal, first.zkVersion(), 1, InSyncStoreTest::notOurs))
        .as("the deposed primary's removal of node 2").isInstanceOf(NotPrimaryException.class);
    assertThat(new InSyncStore(b, layout, () -> {}).read().record()).as("unchanged").isEqualTo(first.record());
  }

  @Test
  void aWriteThatRacesAClaimBetweenItsChecksAndItsTransactionChangesNothing() throws Exception {
    AtomicReference<Runnable> gap = new AtomicReference<>(() -> {});
    InSyncStore old = new InSyncStore(a, layout, () -> gap.get().run());
    claim(a, 1);
    InSyncRecord.Stored first = old.replace(InSyncRecord.start(1, 1, 11).with(2, 22), old.read().zkVersion(), 1,
        InSyncStoreTest::notOurs);
    gap.set(() -> {
      try {
        claim(b, 2);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    assertThatThrownBy(() -> old.replace(first.record().with(3, 33), first.zkVersion(), 1, InSyncStoreTest::notOurs))
        .isInstanceOf(NotPrimaryException.class);
    assertThat(old.read().record().members()).containsOnlyKeys(2);
  }

  @Test
  void aWriteDecidedOnAnOlderRecordIsRefused() throws Exception {
    InSyncStore store = new InSyncStore(a, layout, () -> {});
    claim(a, 1);
    InSyncRecord.Stored first = store.replace(InSyncRecord.start(1, 1, 11), store.read().zkVersion(), 1, InSyncStoreTest::notOurs);
    store.replace(first.record().with(2, 22), first.zkVersion(), 1, InSyncStoreTest::notOurs);
    assertThatThrownBy(() -> store.replace(first.record().with(3, 33), first.zkVersion(), 1, InSyncStoreTest::notOurs))
        .isInstanceOf(NotPublishedException.class);
    assertThat(store.read().record().members()).containsOnlyKeys(2);
  }

  /**
   * A claim decided on the set as read fails once the primary changed it: the primary may have
   * removed a member (and then acknowledged what it lacks) after the claimer read it.
   */
  @Test
  void aClaimFailsWhenTheInSyncSetChangedAfterItWasRead() throws Exception {
    InSyncStore store = new InSyncStore(a, layout, () -> {});
    claim(a, 1);
    InSyncRecord.Stored first = store.replace(InSyncRecord.start(1, 1, 11).with(2, 22).with(3, 33), store.read().zkVersion(), 1,
        InSyncStoreTest::notOurs);
    Stat primary = b.checkExists().forPath(layout.primary());
    PrimaryInfo suspected = new PrimaryInfo(1, "127.0.0.1:1", 1);
    int readVersion = new InSyncStore(b, layout, () -> {}).read().zkVersion();
    store.replace(first.record().without(2, new InSyncRecord.Departure(OutOfSyncReason.LAGGED, 5, 0)), first.zkVersion(), 1,
        InSyncStoreTest::notOurs);
    EpochClaim claimer = new EpochClaim(b, ElectionConfig.builder().layout(layout).nodeId(2).address("127.0.0.1:2").build(),
        new io.nrtcluster.common.NodeLog(org.slf4j.LoggerFactory.getLogger(InSyncStoreTest.class), "N2", () -> -1));
    assertThat(claimer.claim(List.of(), suspected, primary.getVersion(), readVersion)).as("decided on the old set").isNull();
    assertThat(claimer.claim(List.of(), suspected, primary.getVersion(), store.read().zkVersion())).isNotNull();
  }

  @Test
  void theRecordRoundTripsThroughItsEncoding() throws Exception {
    InSyncRecord r = new InSyncRecord(7, 3, -5, Map.of(1, 10L, 2, -20L),
        Map.of(4, new InSyncRecord.Departure(OutOfSyncReason.RESTARTED, -1, 123), 5,
            new InSyncRecord.Departure(OutOfSyncReason.LAGGED, 77, 456)));
    assertThat(InSyncRecord.decode(r.encode())).isEqualTo(r);
    assertThat(InSyncRecord.decode(new byte[0])).isNull();
  }
}
