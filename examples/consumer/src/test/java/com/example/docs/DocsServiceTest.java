package com.example.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.node.HostConfig;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreUnavailableException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URL;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the service as a service would run in production, two nodes of one cluster (here in one JVM,
 * on loopback, the first running an embedded ZooKeeper), through nothing but the installed artifacts:
 * a missing artifact or transitive dependency, or a class that moved, fails it.
 */
@Timeout(60)
class DocsServiceTest {
  private static HostConfig config(Path dir, int nodeId, String zooKeeper) {
    return HostConfig.builder().nodeId(nodeId).cluster("consumer").dataDir(dir.resolve("n" + nodeId))
        .zooKeeper(zooKeeper).bindHost("127.0.0.1").port(0).electionSettle(Duration.ofMillis(300)).build();
  }

  @Test
  void aDocumentWrittenOnThePrimaryIsFoundOnTheReplica(@TempDir Path dir) throws Exception {
    try (DocsService first = DocsService.start(config(dir, 1, HostConfig.EMBEDDED));
        DocsService second = DocsService.start(config(dir, 2, first.zooKeeper()))) {
      List<DocsService> nodes = List.of(first, second);
      await().atMost(Duration.ofSeconds(30)).until(() -> nodes.stream().filter(DocsService::isPrimary).count() == 1);
      DocsService primary = first.isPrimary() ? first : second;
      DocsService replica = primary == first ? second : first;

      primary.put("1", "near real time segment replication");
      primary.put("2", "a merge never delays a refresh");
      long version = primary.refresh();

      await().atMost(Duration.ofSeconds(30)).until(() -> replica.searchingVersion() >= version);
      assertThat(replica.search("replication")).containsExactly("1");
      assertThat(primary.search("refresh")).containsExactly("2");
    }
  }

  /**
   * A service with its own commons-logging: its classes are the only copy on the classpath (the
   * library brings no jcl-over-slf4j to replace them), the service logs through it, and objectstore's
   * HTTP client, which logs through commons-logging too, still runs.
   */
  @Test
  void aServicesOwnCommonsLoggingIsTheOnlyCopyAndTheObjectStoreStillRuns() throws Exception {
    List<URL> copies = Collections.list(ClassLoader.getSystemClassLoader()
        .getResources("org/apache/commons/logging/LogFactory.class"));
    assertThat(copies).as("jars holding org.apache.commons.logging.LogFactory").hasSize(1);
    assertThat(copies.get(0).toString()).contains("/commons-logging-1.3.5.jar!");
    LogFactory.getLog(DocsServiceTest.class).info("the service's own commons-logging logs");
    anUnreachableBackupStoreIsReportedAsUnavailable();
  }

  /** Runs the AWS SDK and its HTTP client (objectstore's dependencies) against a port nobody listens on. */
  @Test
  void anUnreachableBackupStoreIsReportedAsUnavailable() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    ObjectStoreConfig config = ObjectStoreConfig.builder().bucket("backups")
        .endpoint(URI.create("http://127.0.0.1:" + closedPort)).pathStyle(true).credentials("id", "secret")
        .maxAttempts(1).build();

    assertThatThrownBy(() -> DocsService.checkBackupStore(config)).isInstanceOf(ObjectStoreUnavailableException.class);
  }
}
