package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.objectstore.StoreLayout;
import io.nrtcluster.transport.TestCertificates;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NodeCommandTest {
  @TempDir Path dir;

  /** One {@code nrt node} running in this JVM on its own thread, as picocli runs it. */
  static final class RunningNode {
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final NodeCommand command;
    final Thread thread;
    final CompletableFuture<Integer> exit = new CompletableFuture<>();

    RunningNode(String... args) {
      CommandLine cmd = Main.commandLine();
      cmd.setOut(new PrintWriter(out, true));
      cmd.setErr(new PrintWriter(err, true));
      command = cmd.getSubcommands().get("node").getCommand();
      List<String> all = new ArrayList<>(List.of("node"));
      all.addAll(List.of(args));
      thread = Thread.ofPlatform().name("nrt-node-test").start(() -> exit.complete(cmd.execute(all.toArray(String[]::new))));
    }

    String out() {
      return out.toString();
    }

    int awaitExit() throws Exception {
      return exit.get(60, TimeUnit.SECONDS);
    }
  }

  private String[] args(String zk, String name, int id, String... more) {
    List<String> a = new ArrayList<>(List.of("--zk", zk, "--cluster", "t", "--index", "docs", "--data",
        dir.resolve(name).toString(), "--port", "0", "--id", Integer.toString(id), "--session-timeout", "4s",
        "--election-settle", "200ms", "--status-every", "200ms"));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  @Test
  void twoNodesElectOnePrimaryPrintTheirRolesAndLeaveGracefully() throws Exception {
    try (TestingServer zk = new TestingServer(true)) {
      RunningNode a = new RunningNode(args(zk.getConnectString(), "a", 1));
      RunningNode b = new RunningNode(args(zk.getConnectString(), "b", 2));

      await("a PRIMARY and a REPLICA role line").atMost(Duration.ofSeconds(30))
          .until(() -> (a.out() + b.out()).contains("role=PRIMARY") && (a.out() + b.out()).contains("role=REPLICA"));
      RunningNode primary = a.out().contains("role=PRIMARY") ? a : b;
      RunningNode replica = primary == a ? b : a;
      assertThat(replica.out()).doesNotContain("role=PRIMARY");
      assertThat(primary.out()).containsPattern("node N[12] started: address=127\\.0\\.0\\.1:\\d+ cluster=t zookeeper="
          + zk.getConnectString().replace(".", "\\.") + " data=\\S+ indexes=docs");
      String primaryAddress = primary.out().replaceAll("(?s).*node N\\d started: address=(\\S+).*", "$1");
      await("the replica's status line").atMost(Duration.ofSeconds(30))
          .until(() -> replica.out().contains("status role=REPLICA gen=1"));
      assertThat(replica.out()).contains("role=REPLICA gen=1").contains("primary=" + primaryAddress);
      assertThat(primary.out()).containsPattern("N\\d/docs status role=PRIMARY gen=1 version=\\d+ commit=\\d+ copying=false");

      replica.command.shutdown(); // What SIGTERM does.
      assertThat(replica.awaitExit()).as("stderr: %s", replica.err).isZero();
      primary.thread.interrupt(); // An interrupt stops a node gracefully too.
      assertThat(primary.awaitExit()).as("stderr: %s", primary.err).isZero();
      for (RunningNode n : List.of(a, b)) {
        assertThat(n.out()).contains("stopping: each index commits and resigns").endsWith("stopped" + System.lineSeparator());
        assertThat(n.err.toString()).isEmpty();
      }
    }
  }

  @Test
  void unreachableZooKeeperIsOneLineOnStderrAndNonZeroExit() {
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    cmd.setErr(new PrintWriter(err, true));

    List<String> a = new ArrayList<>(List.of("node"));
    a.addAll(List.of(args("127.0.0.1:1", "z", 7, "--connect-timeout", "1s")));
    int exit = cmd.execute(a.toArray(String[]::new));

    assertThat(exit).isNotZero();
    assertThat(err.toString().strip()).doesNotContain("\n").doesNotContain("Exception:")
        .startsWith("nrt node: node N7 could not start: ZooKeeper at 127.0.0.1:1 unreachable");
  }

  @Test
  void anUnusableDataDirectoryIsOneLineOnStderr() throws Exception {
    Path file = Files.writeString(dir.resolve("file"), "x");
    StringWriter err = new StringWriter();
    CommandLine cmd = Main.commandLine();
    cmd.setOut(new PrintWriter(new StringWriter(), true));
    cmd.setErr(new PrintWriter(err, true));

    int exit = cmd.execute("node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", file.toString(),
        "--port", "0");

    assertThat(exit).isNotZero();
    assertThat(err.toString().strip()).doesNotContain("\n").isEqualTo("nrt node: data directory " + file
        + " is not usable: not a directory: " + file);
  }

  @Test
  void withoutIdTheNodeKeepsARandomIdInItsDirectory() throws Exception {
    StringWriter out = new StringWriter();
    Console console = new Console(new PrintWriter(out, true));
    int id = NodeIdFile.read(dir, console);
    assertThat(id).isBetween(1, 65535);
    assertThat(out.toString()).contains("production should pass --id explicitly");
    assertThat(Files.readString(dir.resolve(NodeIdFile.NAME)).strip()).isEqualTo(Integer.toString(id));
    assertThat(NodeIdFile.read(dir, console)).isEqualTo(id);
  }

  @Test
  void twoNodesReplicateOverMutualTls() throws Exception {
    TestCertificates.Authority ca = TestCertificates.authority("cli-ca");
    ca.issueLoopback("a").pem(dir.resolve("tls-a"), ca);
    ca.issueLoopback("b").keyStores(dir.resolve("tls-b"), "b-secret", ca);
    Path passwordFile = Files.writeString(dir.resolve("tls-b/password"), "b-secret\n");
    try (TestingServer zk = new TestingServer(true)) {
      RunningNode a = new RunningNode(args(zk.getConnectString(), "a", 1, "--tls-cert", dir.resolve("tls-a/cert.pem").toString(),
          "--tls-key", dir.resolve("tls-a/key.pem").toString(), "--tls-ca", dir.resolve("tls-a/ca.pem").toString(),
          "--tls-hostname-verification", "true"));
      RunningNode b = new RunningNode(args(zk.getConnectString(), "b", 2, "--tls-keystore",
          dir.resolve("tls-b/keystore.p12").toString(), "--tls-truststore", dir.resolve("tls-b/truststore.p12").toString(),
          "--tls-password-file", passwordFile.toString(), "--tls-hostname-verification", "true"));
      await("a PRIMARY and a REPLICA role line").atMost(Duration.ofSeconds(30))
          .until(() -> (a.out() + b.out()).contains("role=PRIMARY") && (a.out() + b.out()).contains("role=REPLICA"));
      RunningNode primary = a.out().contains("role=PRIMARY") ? a : b;
      RunningNode replica = primary == a ? b : a;
      // The replica searches the primary's version only after copying it over the TLS link (with a
      // certificate of another authority on either node, this never happens).
      await("the replica at the primary's version").atMost(Duration.ofSeconds(30)).until(() -> {
        String version = lastVersion(primary.out(), "PRIMARY");
        return version != null && version.equals(lastVersion(replica.out(), "REPLICA"));
      });
      replica.command.shutdown();
      primary.command.shutdown();
      assertThat(replica.awaitExit()).as("stderr: %s", replica.err).isZero();
      assertThat(primary.awaitExit()).as("stderr: %s", primary.err).isZero();
    }
  }

  /** The version in the last status line of {@code role} in a node's output, or null. */
  private static String lastVersion(String out, String role) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("status role=" + role + " gen=1 version=(\\d+)").matcher(out);
    String last = null;
    while (m.find()) {
      last = m.group(1);
    }
    return last;
  }

  @Test
  void tlsOptionsAreCheckedBeforeTheNodeStarts() throws Exception {
    String[] base = {"node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", dir.resolve("n").toString(),
        "--port", "0", "--id", "3"};
    NrtRun noChoice = NrtRun.nrt(concat(base, "--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-ca", "ca.pem"));
    assertThat(noChoice.exit()).isEqualTo(2);
    assertThat(noChoice.err()).contains("--tls-hostname-verification true|false must be given");

    NrtRun partial = NrtRun.nrt(concat(base, "--tls-cert", "c.pem", "--tls-hostname-verification", "false"));
    assertThat(partial.exit()).isEqualTo(2);
    assertThat(partial.err()).contains("needs all of --tls-cert, --tls-key and --tls-ca");

    Path missing = dir.resolve("missing.pem");
    Path present = Files.writeString(dir.resolve("present.pem"), "x");
    NrtRun noFile = NrtRun.nrt(concat(base, "--tls-cert", present.toString(), "--tls-key", missing.toString(), "--tls-ca",
        present.toString(), "--tls-hostname-verification", "true"));
    assertThat(noFile.exit()).isEqualTo(1);
    assertThat(noFile.err().strip()).doesNotContain("\n").contains("transport.tls.privateKey: " + missing);

    NrtRun badPem = NrtRun.nrt(concat(base, "--tls-cert", present.toString(), "--tls-key", present.toString(), "--tls-ca",
        present.toString(), "--tls-hostname-verification", "true"));
    assertThat(badPem.exit()).isEqualTo(1);
    assertThat(badPem.err().strip()).doesNotContain("\n").contains("transport.tls.certChain").contains(present.toString());

    NrtRun noPassword = NrtRun.nrt(concat(base, "--tls-keystore", present.toString(), "--tls-truststore", present.toString(),
        "--tls-hostname-verification", "true"));
    if (System.getenv(TlsOptions.PASSWORD_ENV) == null) {
      assertThat(noPassword.exit()).isEqualTo(1);
      assertThat(noPassword.err()).contains("--tls-password-file FILE or the environment variable NRT_TLS_PASSWORD");
    }
  }

  @Test
  void copyTreeOptionsAreCheckedBeforeTheNodeStarts() {
    String[] base = {"node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", dir.resolve("n").toString(),
        "--port", "0", "--id", "3"};
    NrtRun fanOut = NrtRun.nrt(concat(base, "--copy-fanout", "0"));
    assertThat(fanOut.exit()).isEqualTo(2);
    assertThat(fanOut.err()).contains("--direct-replicas/--copy-fanout").contains("copyTree.fanOut").contains("--copy-fanout 1 to 64");
    NrtRun direct = NrtRun.nrt(concat(base, "--direct-replicas", "-1"));
    assertThat(direct.exit()).isEqualTo(2);
    assertThat(direct.err()).contains("copyTree.directReplicas");
  }

  @Test
  void suspicionOptionsAreCheckedBeforeTheNodeStarts() {
    String[] base = {"node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", dir.resolve("n").toString(),
        "--port", "0", "--id", "3"};
    NrtRun tooShort = NrtRun.nrt(concat(base, "--suspicion-delay", "5ms"));
    assertThat(tooShort.exit()).isEqualTo(2);
    assertThat(tooShort.err()).contains("--suspicion-delay must be 0 (off) or in [20 ms, 10 min]");

    NrtRun slowHeartbeat = NrtRun.nrt(concat(base, "--suspicion-delay", "200ms", "--heartbeat-interval", "300ms"));
    assertThat(slowHeartbeat.exit()).isEqualTo(2);
    assertThat(slowHeartbeat.err()).contains("--heartbeat-interval must be below --suspicion-delay");

    NrtRun off = NrtRun.nrt(concat(base, "--suspicion-delay", "0", "--heartbeat-interval", "300ms", "--connect-timeout", "1s"));
    assertThat(off.exit()).as("0 turns suspicion off; the node then fails on ZooKeeper only").isNotIn(0, 2);
    assertThat(off.err()).contains("unreachable");
  }

  @Test
  void rebalanceOptionsAreCheckedBeforeTheNodeStarts() {
    String[] base = {"node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", dir.resolve("n").toString(),
        "--port", "0", "--id", "3"};
    NrtRun none = NrtRun.nrt(concat(base, "--max-concurrent-handoffs", "0"));
    assertThat(none.exit()).isEqualTo(2);
    assertThat(none.err()).contains("--max-concurrent-handoffs must be between 1 and 64, got 0");

    NrtRun quiet = NrtRun.nrt(concat(base, "--rebalance-quiet-period", "0s"));
    assertThat(quiet.exit()).isEqualTo(2);

    NrtRun off = NrtRun.nrt(concat(base, "--no-rebalance", "--max-concurrent-handoffs", "4", "--rebalance-quiet-period", "30s",
        "--connect-timeout", "1s"));
    assertThat(off.exit()).as("accepted; the node then fails on ZooKeeper only").isNotIn(0, 2);
    assertThat(off.err()).contains("unreachable");
  }

  @Test
  void threadPoolOptionsAreCheckedBeforeTheNodeStarts() {
    String[] base = {"node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs", "--data", dir.resolve("n").toString(),
        "--port", "0", "--id", "3", "--connect-timeout", "1s"};
    NrtRun unknown = NrtRun.nrt(concat(base, "--threads", "copy=8,merge=2"));
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err()).contains("--threads names no pool 'merge'");

    NrtRun zero = NrtRun.nrt(concat(base, "--threads", "work=0"));
    assertThat(zero.exit()).isEqualTo(2);
    assertThat(zero.err()).contains("work");

    NrtRun idle = NrtRun.nrt(concat(base, "--thread-idle", "10ms"));
    assertThat(idle.exit()).isEqualTo(2);
    assertThat(idle.err()).contains("idleTimeout");

    NrtRun fine = NrtRun.nrt(concat(base, "--threads", "COPY=8", "--threads", "election=64,tick=1", "--thread-idle", "2s"));
    assertThat(fine.exit()).as("valid pool sizes; the node then fails on ZooKeeper only").isNotIn(0, 2);
    assertThat(fine.err()).contains("unreachable");
  }

  private static String[] concat(String[] a, String... b) {
    List<String> all = new ArrayList<>(List.of(a));
    all.addAll(List.of(b));
    return all.toArray(String[]::new);
  }

  /**
   * A follower node (--follow-store) needs only the store: it serves each point the primary backs up
   * (--backup-mode point) and prints its lag, without ZooKeeper or a replication port.
   */
  @Test
  void aFollowerNodeFollowsThePrimarysPointsThroughTheStoreAlone() throws Exception {
    try (TestingServer zk = new TestingServer(true); S3TestServer s3 = S3TestServer.start()) {
      Path secret = dir.resolve("secret");
      Files.writeString(secret, S3TestServer.SECRET_KEY);
      String[] store = {"--backup-bucket", S3TestServer.BUCKET, "--backup-endpoint", s3.endpoint().toString(),
          "--backup-path-style", "--backup-access-key", S3TestServer.ACCESS_KEY, "--backup-secret-key-file", secret.toString()};
      RunningNode a = new RunningNode(args(zk.getConnectString(), "a", 1, concat(store, "--backup-mode", "point")));
      await("N1 primary").atMost(Duration.ofSeconds(30)).until(() -> a.out().contains("role=PRIMARY"));
      List<String> follower = new ArrayList<>(List.of("--follow-store", "--cluster", "t", "--index", "docs", "--data",
          dir.resolve("f").toString(), "--id", "7", "--status-every", "200ms", "--follow-poll", "50ms"));
      follower.addAll(List.of(store));
      RunningNode f = new RunningNode(follower.toArray(String[]::new));
      await("F7 started").atMost(Duration.ofSeconds(30)).until(() -> f.out().contains("follower F7 started: cluster=t"));
      CommandLine commit = Main.commandLine();
      commit.setOut(new PrintWriter(new StringWriter(), true));
      commit.setErr(new PrintWriter(new StringWriter(), true));
      assertThat(commit.execute("commit", "--zk", zk.getConnectString(), "--cluster", "t", "--index", "docs")).isZero();
      await("F7 serves a backed-up point, caught up").atMost(Duration.ofSeconds(30))
          .until(() -> f.out().matches("(?s).*F7/docs follower version=\\d+ gen=\\d+ newest=\\d+ lag=0v/.*"));
      for (RunningNode n : List.of(f, a)) {
        n.command.shutdown();
        assertThat(n.awaitExit()).as("stderr: %s", n.err).isZero();
      }
      assertThat(f.out()).contains("follower F7 stopped");
    }
  }

  @Test
  void aFollowerTakesNoZooKeeperAndNeedsABucket() {
    NrtRun both = NrtRun.nrt("node", "--follow-store", "--zk", "localhost:1", "--cluster", "t", "--index", "docs",
        "--data", dir.resolve("x").toString(), "--backup-bucket", "b");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--follow-store takes no --zk");
    NrtRun noBucket = NrtRun.nrt("node", "--follow-store", "--cluster", "t", "--index", "docs", "--data",
        dir.resolve("x").toString());
    assertThat(noBucket.exit()).isEqualTo(2);
    assertThat(noBucket.err()).contains("--follow-store needs --backup-bucket");
    NrtRun noZk = NrtRun.nrt("node", "--cluster", "t", "--index", "docs", "--data", dir.resolve("x").toString(),
        "--port", "0");
    assertThat(noZk.exit()).isEqualTo(2);
    assertThat(noZk.err()).contains("--zk");
  }

  @Test
  void withABucketTheNodesBackUpAndANewNodeBootstrapsFromTheStore() throws Exception {
    try (TestingServer zk = new TestingServer(true); S3TestServer s3 = S3TestServer.start()) {
      Path secret = dir.resolve("secret");
      Files.writeString(secret, S3TestServer.SECRET_KEY);
      String[] store = {"--backup-bucket", S3TestServer.BUCKET, "--backup-endpoint", s3.endpoint().toString(),
          "--backup-path-style", "--backup-access-key", S3TestServer.ACCESS_KEY, "--backup-secret-key-file", secret.toString(),
          "--retain-last", "2", "--retention-interval", "1s", "--verify-interval", "1s"};
      RunningNode a = new RunningNode(args(zk.getConnectString(), "a", 1, store));
      await("N1 primary").atMost(Duration.ofSeconds(30)).until(() -> a.out().contains("role=PRIMARY"));
      assertThat(a.out()).contains("N1/docs bootstrap NO_BACKUP local=").contains("N1/docs backups EVERY_COMMIT to t/docs");
      // An operator's commit is backed up by the primary's host.
      CommandLine commit = Main.commandLine();
      commit.setOut(new PrintWriter(new StringWriter(), true));
      StringWriter commitErr = new StringWriter();
      commit.setErr(new PrintWriter(commitErr, true));
      assertThat(commit.execute("commit", "--zk", zk.getConnectString(), "--cluster", "t", "--index", "docs"))
          .as("stderr: %s", commitErr).isZero();
      try (BlobStore blobs = BlobStore.open(s3.config().build(), new ObjectStoreMetrics())) {
        ManifestStore manifests = new ManifestStore(blobs, StoreLayout.of("", "t", "docs"));
        await("a backup of N1's commit").atMost(Duration.ofSeconds(30)).until(() -> manifests.latestId().isPresent());
      }
      // The primary rereads its newest backup in the background and says so once per verification.
      await("N1 verified its backup").atMost(Duration.ofSeconds(30))
          .until(() -> a.out().matches("(?s).*N1/docs backup version \\d+ verified: intact \\(\\d+ objects, .*"));
      RunningNode b = new RunningNode(args(zk.getConnectString(), "b", 2, store));
      await("N2 replica").atMost(Duration.ofSeconds(30)).until(() -> b.out().contains("role=REPLICA"));
      assertThat(b.out()).containsPattern("N2/docs bootstrap RESTORED local=-1 backup=\\d+");
      for (RunningNode n : List.of(b, a)) {
        n.command.shutdown();
        assertThat(n.awaitExit()).as("stderr: %s", n.err).isZero();
        assertThat(n.err.toString()).isEmpty();
      }
    }
  }

  @Test
  void backupOptionsAreCheckedBeforeTheNodeStarts() {
    for (String[] bad : List.of(
        new String[] {"--backup-endpoint", "http://127.0.0.1:1"},
        new String[] {"--backup-bucket", "b", "--retain-newer-than", "1h"},
        new String[] {"--backup-bucket", "b", "--backup-mode", "off", "--retain-last", "3"},
        new String[] {"--backup-bucket", "b", "--retain-last", "0"},
        new String[] {"--backup-bucket", "b", "--backup-mode", "sometimes"},
        new String[] {"--backup-bucket", "b", "--verify-rate", "fast"},
        new String[] {"--backup-bucket", "b", "--verify-rate", "1KiB"},
        new String[] {"--backup-bucket", "b", "--verify-interval", "200h"})) {
      StringWriter err = new StringWriter();
      CommandLine cmd = Main.commandLine();
      cmd.setOut(new PrintWriter(new StringWriter(), true));
      cmd.setErr(new PrintWriter(err, true));
      List<String> a = new ArrayList<>(List.of("node"));
      a.addAll(List.of(args("127.0.0.1:1", "bad", 9, bad)));
      assertThat(cmd.execute(a.toArray(String[]::new))).as("%s: %s", List.of(bad), err).isEqualTo(2);
      assertThat(err.toString()).as("%s", List.of(bad)).contains("--");
    }
  }
}
