package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.cli.NodeCommandTest.RunningNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@code nrt node|status|promote|secure} with ZooKeeper credentials from a password file, on a real ZooKeeper. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ZooKeeperAuthCommandsTest {
  @TempDir Path dir;
  private TestingServer zk;
  private Path password;
  private Path wrongPassword;

  @BeforeEach
  void start() throws Exception {
    zk = new TestingServer(true);
    password = Files.writeString(dir.resolve("zk.password"), "s3cret pass:word\n");
    wrongPassword = Files.writeString(dir.resolve("wrong.password"), "guessed\n");
  }

  @AfterEach
  void stop() throws Exception {
    zk.close();
  }

  private String[] node(String name, int id, String... more) {
    List<String> a = new ArrayList<>(List.of("--zk", zk.getConnectString(), "--cluster", "sec", "--index", "docs", "--data",
        dir.resolve(name).toString(), "--port", "0", "--id", Integer.toString(id), "--session-timeout", "4s",
        "--election-settle", "200ms", "--status-every", "200ms"));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }

  private NrtRun admin(String command, String... more) {
    List<String> a = new ArrayList<>(List.of(command, "--zk", zk.getConnectString(), "--cluster", "sec"));
    a.addAll(List.of(more));
    return NrtRun.nrt(a.toArray(String[]::new));
  }

  private static void assertOneLine(NrtRun run, int exit, String... contains) {
    assertThat(run.exit()).as(run.err()).isEqualTo(exit);
    assertThat(run.err().strip().lines()).hasSize(1).first().asString().contains(contains);
  }

  @Test
  void nodesAndOperatorsWithThePasswordFileWorkAndEveryoneElseGetsExitCode7() throws Exception {
    String[] creds = {"--zk-user", "ops", "--zk-password-file", password.toString()};
    RunningNode a = new RunningNode(node("a", 1, creds));
    RunningNode b = new RunningNode(node("b", 2, creds));
    try {
      await("a PRIMARY and a REPLICA").atMost(Duration.ofSeconds(30))
          .until(() -> (a.out() + b.out()).contains("role=PRIMARY") && (a.out() + b.out()).contains("role=REPLICA"));
      int replicaId = a.out().contains("role=PRIMARY") ? 2 : 1;

      NrtRun status = admin("status", "--json", "--zk-user", "ops", "--zk-password-file", password.toString());
      assertThat(status.exit()).as(status.err()).isZero();
      JsonNode json = new ObjectMapper().readTree(status.out());
      assertThat(json.get("indexes").get(0).get("members")).hasSize(2);

      NrtRun promote = admin("promote", "--index", "docs", "--node", Integer.toString(replicaId), "--timeout", "30s",
          "--zk-user", "ops", "--zk-password-file", password.toString());
      assertThat(promote.exit()).as(promote.err()).isZero();
      assertThat(promote.out()).contains("node " + replicaId + " is the primary of sec/docs");

      assertOneLine(admin("status"), 7, "ZooKeeper denied access to /nrtcluster/sec", "configure the ZooKeeper credentials");
      assertOneLine(admin("status", "--zk-user", "ops", "--zk-password-file", wrongPassword.toString()), 7,
          "wrong password for ZooKeeper user 'ops'");
      assertOneLine(admin("promote", "--index", "docs", "--node", Integer.toString(3 - replicaId)), 7, "ZooKeeper denied access");
      assertOneLine(admin("commit", "--index", "docs"), 7, "ZooKeeper denied access");

      NrtRun intruder = NrtRun.nrt(prefixed("node", node("c", 3, "--zk-user", "ops", "--zk-password-file", wrongPassword.toString(),
          "--connect-timeout", "5s")));
      assertOneLine(intruder, 7, "nrt node: node N3 could not start: ZooKeeper denied access");

      assertOneLine(admin("status", "--zk-password-file", password.toString()), 2, "--zk-password-file needs --zk-user");
      if (System.getenv(ZooKeeperAuthOptions.PASSWORD_ENV) == null) {
        assertOneLine(admin("status", "--zk-user", "ops"), 2, "--zk-user needs a password");
      }
      assertOneLine(admin("status", "--zk-user", "ops", "--zk-password-file", dir.resolve("missing").toString()), 1,
          "cannot read the ZooKeeper password file");
      assertThat(promote.out() + status.out() + a.out() + b.out()).doesNotContain("s3cret");
    } finally {
      a.command.shutdown();
      b.command.shutdown();
      assertThat(a.awaitExit()).as("stderr: %s", a.err).isZero();
      assertThat(b.awaitExit()).as("stderr: %s", b.err).isZero();
    }
  }

  private static String[] prefixed(String first, String... rest) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }

  @Test
  void anOpenClusterIsRefusedWithCredentialsUntilSecuredAndAPasswordChangeTakesTheSecureCommand() throws Exception {
    RunningNode open = new RunningNode(node("a", 1));
    await("PRIMARY").atMost(Duration.ofSeconds(30)).until(() -> open.out().contains("role=PRIMARY"));
    open.command.shutdown();
    assertThat(open.awaitExit()).as("stderr: %s", open.err).isZero();

    String[] creds = {"--zk-user", "ops", "--zk-password-file", password.toString()};
    assertOneLine(NrtRun.nrt(prefixed("node", node("a", 1, creds))), 7, "open to anyone", "nrt secure");
    assertOneLine(admin("secure"), 2, "--zk-user is required");
    NrtRun secure = admin("secure", creds);
    assertThat(secure.exit()).as(secure.err()).isZero();
    assertThat(secure.out()).containsPattern("secure: \\d+ znode\\(s\\) of cluster sec changed");
    assertOneLine(admin("status"), 7, "ZooKeeper denied access");

    // A password change: read with the previous password, secured for the new one.
    String[] rotated = {"--zk-user", "ops", "--zk-password-file", wrongPassword.toString()};
    assertOneLine(admin("status", rotated), 7, "wrong password");
    NrtRun rotate = admin("secure", "--zk-user", "ops", "--zk-password-file", wrongPassword.toString(),
        "--zk-previous-password-file", password.toString());
    assertThat(rotate.exit()).as(rotate.err()).isZero();
    assertOneLine(admin("status", creds), 7, "wrong password");
    NrtRun status = admin("status", rotated);
    assertThat(status.exit()).as(status.err()).isZero();

    RunningNode again = new RunningNode(node("a", 1, rotated));
    try {
      await("PRIMARY again").atMost(Duration.ofSeconds(30)).until(() -> again.out().contains("role=PRIMARY gen=2"));
    } finally {
      again.command.shutdown();
      assertThat(again.awaitExit()).as("stderr: %s", again.err).isZero();
    }
  }
}
