package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.primary.CopyTreeConfig;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.InboundFileStream;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.FaultInjection;
import io.nrtcluster.transport.Traffic;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicas that copy from replicas ({@link CopyTreeConfig}): the primary sends each new byte to its
 * direct replica only, every replica searches the very same versions, and a parent that dies
 * mid-copy or serves a file that rotted on its disk is routed around: the child fetches from the
 * primary and installs nothing corrupt.
 */
@Timeout(180)
class CopyTreeTest {
  /**
   * One replica copies from the primary, at most two from each parent; a parent is waited for long
   * enough that a busy machine never makes a child fetch from the primary for slowness alone (the
   * tests below kill the parent, or rot its files, instead).
   */
  private static final CopyTreeConfig TREE = new CopyTreeConfig(1, 2, Duration.ofSeconds(30));

  @TempDir Path dir;

  private static ClusterHarness withTree(ClusterHarness c) {
    return c.indexOpener((node, host, names) -> {
      for (String index : names) {
        host.openIndex(IndexSettings.standard(index).withCopyTree(TREE));
      }
    });
  }

  @Test
  void fourReplicasInATreeSearchTheSameVersionsWhileThePrimarySendsEachByteOnce() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = withTree(new ClusterHarness(dir, seed, 5, List.of(ClusterHarness.INDEX))).startWithFirstAsPrimary()) {
      ClusterNode primary = c.node(0);
      int[] ids = new int[5];
      for (int i = 0; i < 5; i++) {
        ids[i] = c.host(i).nodeId();
      }
      // By node id: the first copies from the primary, two from it, the last from the second. Until
      // every member record's address is in the primary's cache a replica may copy from the primary
      // for a moment (and joins no in-sync set meanwhile): the plan is replanned within 500 ms.
      Map<Integer, Integer> expected = Map.of(ids[1], -1, ids[2], ids[1], ids[3], ids[1], ids[4], ids[2]);
      await("the copy tree of 4 replicas (seed " + seed + ")").atMost(ClusterHarness.TIMEOUT)
          .until(() -> primary.primary().copySources().equals(expected));
      long version = 0;
      for (int round = 0; round < 4; round++) {
        c.addDocs(primary, 2_000);
        version = primary.refresh();
        c.awaitAllAt(version);
        c.assertSameHits(version);
      }
      // A merge's pre-copy goes down the tree too.
      primary.primary().writer().forceMerge(1);
      version = primary.refresh();
      c.awaitAllAt(version);
      c.assertSameHits(version);

      long direct = c.node(1).replica().stats().bytesCopied();
      long sentToAll = 0;
      for (int i = 1; i < 5; i++) {
        Traffic t = primary.trafficByPeer().get(ids[i]);
        sentToAll += t == null ? 0 : t.bytesSent();
      }
      System.out.printf("seed %d: the primary sent %d bytes to 4 replicas; its direct replica copied %d%n", seed, sentToAll,
          direct);
      assertThat(sentToAll).as("seed %d: bytes the primary sent 4 replicas, against the %d one replica copied", seed, direct)
          .isLessThanOrEqualTo(direct + direct / 4);
      for (int i = 2; i < 5; i++) {
        var stats = c.node(i).replica().stats();
        assertThat(stats.bytesFromPeers()).as("seed %d: N%d's bytes from its parent", seed, ids[i])
            .isGreaterThan(stats.bytesCopied() / 2);
        assertThat(c.node(i).replica().copySource()).isEqualTo(primary.primary().copySourceOf(ids[i]));
      }
    }
  }

  @Test
  void aParentKilledMidCopyIsRoutedAroundAndItsChildrenCatchUpFromThePrimary() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = withTree(new ClusterHarness(dir, seed, 4, List.of(ClusterHarness.INDEX)))) {
      // Replicas read slowly, so the parent is still sending when it dies.
      for (int i = 1; i < 4; i++) {
        c.configure(i, b -> b.suspicionDelay(Duration.ZERO));
        c.transport(i, ClusterHarness.transport().toBuilder()
            .faults(FaultInjection.builder().throttleBytesPerSecond(512 * 1024).seed(seed).build()).build());
      }
      c.startWithFirstAsPrimary();
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 500);
      c.awaitAllAt(primary.refresh());
      int[] tree = awaitTree(c, seed);
      int parent = c.host(tree[0]).nodeId();

      c.addDocs(primary, 30_000);
      long version = primary.refresh();
      ClusterNode child = c.node(tree[1]);
      long before = received(child, parent);
      await("a child copying from its parent (seed " + seed + ")").atMost(ClusterHarness.TIMEOUT)
          .until(() -> received(child, parent) > before + 64 * 1024);
      c.kill(tree[0]);

      c.awaitAllAt(ClusterHarness.INDEX, version, Duration.ofSeconds(90));
      c.assertSameHits(version);
      for (int i : new int[] {tree[1], tree[2]}) {
        assertThat(c.node(i).replica().copySource()).as("seed %d: N%d no longer copies from the dead parent", seed,
            c.host(i).nodeId()).isNotEqualTo(parent);
      }
      assertThat(child.replica().stats().peerFallbacks()).as("seed %d: files the dead parent did not finish", seed).isPositive();
      // And the next points come from the primary.
      c.addDocs(primary, 100);
      long next = primary.refresh();
      c.awaitAllAt(next);
      c.assertSameHits(next);
    }
  }

  @Test
  void aFileThatRottedOnTheParentIsFetchedFromThePrimaryAndNeverInstalled() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = withTree(new ClusterHarness(dir, seed, 3, List.of(ClusterHarness.INDEX)))) {
      for (int i = 1; i < 3; i++) {
        c.configure(i, b -> b.suspicionDelay(Duration.ZERO));
        c.transport(i, ClusterHarness.transport().toBuilder()
            .faults(FaultInjection.builder().throttleBytesPerSecond(256 * 1024).seed(seed).build()).build());
      }
      c.startWithFirstAsPrimary();
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 200);
      c.awaitAllAt(primary.refresh());
      int[] tree = awaitTree(c, seed);
      int parent = c.host(tree[0]).nodeId();
      int childId = c.host(tree[1]).nodeId();
      ClusterNode child = c.node(tree[1]);

      c.addDocs(primary, 20_000);
      long version = primary.refresh();
      long before = received(child, parent);
      await("N" + childId + " copying from its parent (seed " + seed + ")").atMost(ClusterHarness.TIMEOUT)
          .until(() -> received(child, parent) > before);
      // Bit rot on the parent's disk under intact footers: every file the child has not read yet.
      int rotted = rot(c.host(tree[0]).indexDirectory(ClusterHarness.INDEX).resolve("index"));
      assertThat(rotted).isPositive();

      await("N" + childId + " at " + version + " (seed " + seed + ")").atMost(Duration.ofSeconds(90))
          .until(() -> child.searchingVersion() >= version);
      assertThat(ClusterHarness.view(child)).as("seed %d", seed).isEqualTo(ClusterHarness.view(primary));
      assertThat(child.replica().stats().peerFallbacks()).as("seed %d: rotten files refetched from the primary", seed)
          .isPositive();
    }
  }

  @Test
  void aReplicaServesPeersOnlyWholeFilesItHoldsWithTheAdvertisedChecksum() throws Exception {
    long seed = FailoverTest.seed();
    try (ClusterHarness c = withTree(new ClusterHarness(dir, seed, 2, List.of(ClusterHarness.INDEX))).startWithFirstAsPrimary();
        Transport peer = Transport.create("peer", ClusterHarness.transport())) {
      ClusterNode primary = c.node(0);
      c.addDocs(primary, 500);
      c.awaitAllAt(primary.refresh());
      NodeAddress replicaAt = c.host(1).transport().server().localAddress();
      Connection conn = peer.connect(replicaAt, ClusterHarness.CLUSTER, ClusterHarness.INDEX, 99, PeerRole.REPLICA, (x, m) -> {})
          .get(10, TimeUnit.SECONDS);
      assertThat(conn.peerRole()).as("a replica answers as one").isEqualTo(PeerRole.REPLICA);
      Path index = c.host(1).indexDirectory(ClusterHarness.INDEX).resolve("index");
      String file;
      try (Stream<Path> files = Files.list(index)) {
        file = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".si")).findFirst().orElseThrow();
      }
      long checksum;
      try (Directory d = FSDirectory.open(index); IndexInput in = d.openInput(file, IOContext.READONCE)) {
        checksum = CodecUtil.retrieveChecksum(in);
      }
      try (InboundFileStream s = conn.fetchFile(Message.SourceKind.PEER, checksum, file, 0)) {
        assertThat(s.length()).as("a file it holds with that checksum is served").isEqualTo(Files.size(index.resolve(file)));
      }
      for (String name : List.of("../node.state", "/etc/passwd", "sub/dir", "..", "no_such_file.cfs", file + ".tmp")) {
        try (InboundFileStream s = conn.fetchFile(Message.SourceKind.PEER, checksum, name, 0)) {
          assertThatThrownBy(s::length).as("fetching '%s'", name).isInstanceOf(FileNotServableException.class);
        }
      }
      try (InboundFileStream s = conn.fetchFile(Message.SourceKind.PEER, checksum ^ 1, file, 0)) {
        assertThatThrownBy(s::length).as("the same name with another checksum").isInstanceOf(FileNotServableException.class);
      }
      try (InboundFileStream s = conn.fetchFile(Message.SourceKind.COPY_STATE, 1, file, 0)) {
        assertThatThrownBy(s::length).as("a replica hands out no copy-states").isInstanceOf(ProtocolException.class);
      }
      assertThatThrownBy(() -> conn.request(id -> new Message.GetCopyState(id, 99)).get(10, TimeUnit.SECONDS))
          .hasCauseInstanceOf(ProtocolException.class);
      assertThat(c.node(1).replica().filesServedToPeers()).isEqualTo(1);
    }
  }

  /**
   * Waits until node 0's copy tree has every other node: returns the positions of the replica that
   * copies from the primary, then of those that copy from it.
   */
  private static int[] awaitTree(ClusterHarness c, long seed) {
    ClusterNode primary = c.node(0);
    await("a copy tree of " + (c.size() - 1) + " replicas (seed " + seed + ")").atMost(ClusterHarness.TIMEOUT)
        .until(() -> {
          Map<Integer, Integer> sources = primary.primary().copySources();
          return sources.size() == c.size() - 1 && sources.values().stream().filter(p -> p == -1).count() == 1;
        });
    int[] out = new int[c.size() - 1];
    int next = 1;
    for (int i = 1; i < c.size(); i++) {
      if (primary.primary().copySourceOf(c.host(i).nodeId()) == -1) {
        out[0] = i;
      } else {
        out[next++] = i;
      }
    }
    for (int i = 1; i < out.length; i++) {
      ClusterNode child = c.node(out[i]);
      int parent = c.host(out[0]).nodeId();
      await("N" + c.host(out[i]).nodeId() + " told to copy from N" + parent + " (seed " + seed + ")")
          .atMost(ClusterHarness.TIMEOUT).until(() -> child.replica().copySource() == parent);
    }
    return out;
  }

  private static long received(ClusterNode n, int peer) {
    Traffic t = n.trafficByPeer().get(peer);
    return t == null ? 0 : t.bytesReceived();
  }

  /** Flips a byte in the middle of the body of every data file over 64 KiB in {@code index}; returns how many. */
  private static int rot(Path index) throws IOException {
    int n = 0;
    try (Stream<Path> files = Files.list(index)) {
      for (Path f : files.filter(p -> !p.getFileName().toString().startsWith("segments")
          && !p.getFileName().toString().endsWith(".tmp")).toList()) {
        long length = Files.size(f);
        if (length < 64 * 1024) {
          continue;
        }
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
          long at = length - 32 * 1024;
          raf.seek(at);
          int b = raf.read();
          raf.seek(at);
          raf.write(b ^ 0x10);
        }
        n++;
      }
    }
    return n;
  }
}
