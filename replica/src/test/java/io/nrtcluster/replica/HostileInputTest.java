package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.InboundFileStream;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.NodeAddress;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import java.io.DataOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class HostileInputTest {
  @TempDir Path dir;

  @Test
  void unknownNamesAndPathTraversalAreRefusedAndTheServerKeepsServing() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 1, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start();
        Transport attacker = Transport.create("attacker", MiniCluster.fastTransport())) {
      cluster.addDocs(200);
      cluster.awaitReplicasAt(cluster.refresh(), Duration.ofSeconds(30));
      NodeAddress address = cluster.primary().address();
      Connection c = attacker.connect(address, MiniCluster.CLUSTER, MiniCluster.INDEX, 99, PeerRole.REPLICA, (conn, m) -> {})
          .get(10, TimeUnit.SECONDS);
      Message.CopyStateReply state = (Message.CopyStateReply) c.request(id -> new Message.GetCopyState(id, 99)).get(10, TimeUnit.SECONDS);
      String someFile = state.files().keySet().iterator().next();

      for (String name : List.of("../p0/node.state", "../../../../etc/passwd", "/etc/passwd", "_0.cfs/../x", "sub/dir",
          "..", "", "write.lock", "segments_1", "no_such_file.bin", "a\u0000b", "\\windows")) {
        try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, state.copyStateId(), name, 0)) {
          assertThatThrownBy(s::length).as("fetching '%s'", name).isInstanceOf(FileNotServableException.class);
        }
      }
      try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 123456, someFile, 0)) {
        assertThatThrownBy(s::length).isInstanceOfSatisfying(NrtClusterException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_COPY_STATE));
      }
      try (InboundFileStream s = c.fetchFile(Message.SourceKind.MERGE_PRECOPY, 1, someFile, 0)) {
        assertThatThrownBy(s::length).isInstanceOf(FileNotServableException.class);
      }
      try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, state.copyStateId(), someFile, 0)) {
        assertThat(s.length()).as("a file of the held copy-state is served").isPositive();
      }
      c.request(id -> new Message.ReleaseCopyState(id, state.copyStateId())).get(10, TimeUnit.SECONDS);

      // Oversized and malformed frames close only the connection that sent them.
      assertClosedAfter(address, frame(Integer.MAX_VALUE, new byte[16]));
      assertClosedAfter(address, frame(9, new byte[] {(byte) 200, 0, 0, 0, 0, 0, 0, 0, 1}));
      assertClosedAfter(address, frame(3, new byte[] {1, 2, 3}));

      cluster.addDocs(200);
      long version = cluster.refresh();
      cluster.awaitReplicasAt(version, Duration.ofSeconds(30));
      MiniCluster.View view = MiniCluster.view(cluster.replica(0));
      assertThat(view.counts()).as("seed %d", seed).isEqualTo(cluster.expected(view.version()));
      await().atMost(Duration.ofSeconds(10)).until(() -> cluster.primary().copyStatesHeld() == 0);
    }
  }

  @Test
  void aNodeOfAnotherClusterIsRefused() throws Exception {
    long seed = TestSeeds.seed();
    try (MiniCluster cluster = new MiniCluster(dir, seed, 0, MiniCluster.fastTransport(), MiniCluster.fastTransport()).start();
        Transport other = Transport.create("other", MiniCluster.fastTransport())) {
      assertThatThrownBy(() -> other.connect(cluster.primary().address(), "another-cluster", MiniCluster.INDEX, 7, PeerRole.REPLICA,
          (c, m) -> {}).get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause().isInstanceOfSatisfying(ClusterMismatchException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.WRONG_CLUSTER));
      assertThatThrownBy(() -> other.connect(cluster.primary().address(), MiniCluster.CLUSTER, "no-such-index", 7, PeerRole.REPLICA,
          (c, m) -> {}).get(10, TimeUnit.SECONDS))
          .cause().isInstanceOfSatisfying(ClusterMismatchException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_INDEX));
    }
  }

  private static byte[] frame(int declaredLength, byte[] body) {
    byte[] out = new byte[4 + body.length];
    out[0] = (byte) (declaredLength >>> 24);
    out[1] = (byte) (declaredLength >>> 16);
    out[2] = (byte) (declaredLength >>> 8);
    out[3] = (byte) declaredLength;
    System.arraycopy(body, 0, out, 4, body.length);
    return out;
  }

  /** Sends raw bytes and expects the server to close the connection (read returns -1). */
  private static void assertClosedAfter(NodeAddress address, byte[] bytes) throws Exception {
    try (Socket s = new Socket(address.host(), address.port())) {
      s.setSoTimeout(10_000);
      new DataOutputStream(s.getOutputStream()).write(bytes);
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      while (in.read(buf) >= 0) {
        // Drain the error frame the server may send before closing.
      }
    }
  }
}
