package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.stress.agent.StoreOptions;
import io.nrtcluster.stress.net.NetLab;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The chaos run's object store: the options it gives the nodes, a stop that refuses connections and a
 * restart on the same address, and, in namespace mode, a server on the lab's bridge address that a
 * process inside a host's namespace reaches (as the node JVMs must).
 */
class ChaosStoreTest {
  @TempDir Path dir;

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void nodesGetTheEndpointAndTheStoreStopsAndComesBackOnTheSameAddress() throws Exception {
    try (ChaosStore store = ChaosStore.start("127.0.0.1", BackupMode.EVERY_POINT, dir)) {
      List<String> args = store.nodeArgs();
      assertThat(args).contains("--store-endpoint", "--store-bucket", "--store-credentials-file", "EVERY_POINT");
      URI endpoint = URI.create(args.get(args.indexOf("--store-endpoint") + 1));
      assertThat(endpoint.getHost()).isEqualTo("127.0.0.1");
      assertThat(store.newestVersion()).isEqualTo(-1);

      store.stop();
      assertThat(store.running()).isFalse();
      assertThatThrownBy(() -> connect(endpoint)).isInstanceOf(IOException.class);
      assertThat(store.newest()).isEmpty();
      store.restart();
      assertThat(store.running()).isTrue();
      connect(endpoint);
      assertThat(store.newestVersion()).isEqualTo(-1);
    }
  }

  @Test
  @Timeout(value = 90, unit = TimeUnit.SECONDS)
  void aHostInANamespaceReachesTheStoreOnTheBridgeAddress() throws Exception {
    Assumptions.assumeTrue(NetLab.rootAvailable(), "network namespaces need root and iproute2");
    Assumptions.assumeTrue(new java.io.File("/usr/bin/curl").canExecute(), "needs curl");
    try (NetLab lab = NetLab.create("chaos store test", "N1");
        ChaosStore store = ChaosStore.start(lab.bridgeAddress(), BackupMode.EVERY_COMMIT, dir)) {
      List<String> args = store.nodeArgs();
      String endpoint = args.get(args.indexOf("--store-endpoint") + 1);
      assertThat(endpoint).contains(lab.bridgeAddress());
      // Any HTTP answer (an unsigned request is refused) shows the namespace reaches the server.
      Process curl = new ProcessBuilder(lab.host("N1").wrap(List.of("/usr/bin/curl", "-s", "-o", "/dev/null",
          "--max-time", "10", "-w", "%{http_code}", endpoint + "/"))).redirectErrorStream(true).start();
      assertThat(curl.waitFor(30, TimeUnit.SECONDS)).isTrue();
      String code = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      assertThat(code).as("HTTP status seen from inside the namespace").matches("[1-5][0-9][0-9]");
    }
  }

  /**
   * The store's credentials reach node processes through a file only this user reads, never their
   * command line (which any local user reads in {@code ps}).
   */
  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void theCredentialsReachTheNodesInAFileOnlyTheirUserReadsAndNeverOnTheCommandLine() throws Exception {
    try (ChaosStore store = ChaosStore.start("127.0.0.1", BackupMode.EVERY_COMMIT, dir)) {
      List<String> args = store.nodeArgs();
      assertThat(String.join(" ", args)).doesNotContain(S3TestServer.ACCESS_KEY).doesNotContain(S3TestServer.SECRET_KEY);
      Path file = Path.of(args.get(args.indexOf("--store-credentials-file") + 1));
      assertThat(Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ,
          PosixFilePermission.OWNER_WRITE);
      // A node process parses exactly these options: its store connection carries the credentials.
      Parsed parsed = new Parsed();
      new CommandLine(parsed).setUnmatchedArgumentsAllowed(true).parseArgs(args.toArray(String[]::new));
      ObjectStoreConfig config = parsed.store.config().build();
      assertThat(config.accessKeyId()).isEqualTo(S3TestServer.ACCESS_KEY);
      assertThat(config.secretAccessKey()).isEqualTo(S3TestServer.SECRET_KEY);
    }
  }

  @CommandLine.Command(name = "node")
  static final class Parsed {
    @CommandLine.Mixin StoreOptions store;
  }

  private static void connect(URI endpoint) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 2_000);
    }
  }
}
