package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ConnectionException;
import java.io.Closeable;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;

/**
 * Where each node's HTTP API is, so a replica can forward a write to the primary's HTTP API: the
 * library names the primary by its replication address ({@code ClusterNode.primaryAddress()}), and
 * every node publishes the mapping from its replication address to its HTTP URL in an ephemeral
 * znode, {@code /nrtcluster-examples/search-service/<cluster>/http/n-<nodeId>}, holding
 * {@code {"nodeId":..,"replication":"host:port","http":"http://host:port"}}. The znode is
 * recreated after a session loss and disappears with the node; every node watches the others' in a
 * local cache, so a lookup costs no ZooKeeper round trip.
 *
 * <p>It uses its own ZooKeeper session (the host's client is the library's own): one more session
 * per node, which is fine for an example.
 */
final class HttpAddressBook implements Closeable {
  static final String ROOT = "/nrtcluster-examples/search-service";

  private final ObjectMapper json;
  private final CuratorFramework curator;
  private final PersistentNode own;
  private final CuratorCache cache;
  private final String path;

  private HttpAddressBook(ObjectMapper json, CuratorFramework curator, PersistentNode own, CuratorCache cache, String path) {
    this.json = json;
    this.curator = curator;
    this.own = own;
    this.cache = cache;
    this.path = path;
  }

  /** Publishes this node's entry (waiting for it up to {@code timeout}) and starts watching the others. */
  static HttpAddressBook start(String zooKeeper, String cluster, int nodeId, String replicationAddress, URI http,
      Duration sessionTimeout, Duration timeout, ObjectMapper json) throws IOException {
    Checks.safeName("cluster", cluster);
    String parent = ZKPaths.makePath(ROOT, cluster, "http");
    CuratorFramework curator = CuratorFrameworkFactory.builder().connectString(zooKeeper)
        .sessionTimeoutMs((int) sessionTimeout.toMillis())
        .connectionTimeoutMs((int) Math.min(timeout.toMillis(), sessionTimeout.toMillis()))
        .retryPolicy(new ExponentialBackoffRetry(100, 10, 2000)).build();
    PersistentNode own = null;
    CuratorCache cache = null;
    try {
      curator.start();
      byte[] entry = json.writeValueAsBytes(Map.of("nodeId", nodeId, "replication", replicationAddress, "http", http.toString()));
      own = new PersistentNode(curator, CreateMode.EPHEMERAL, false, ZKPaths.makePath(parent, "n-" + nodeId), entry);
      own.start();
      if (!own.waitForInitialCreate(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new ConnectionException("could not publish the HTTP address in ZooKeeper at " + zooKeeper + " within " + timeout);
      }
      cache = CuratorCache.build(curator, parent);
      cache.start();
      return new HttpAddressBook(json, curator, own, cache, parent);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeQuietly(own, cache, curator);
      throw new ConnectionException("interrupted while publishing the HTTP address", e);
    } catch (IOException | RuntimeException e) {
      closeQuietly(own, cache, curator);
      throw e;
    } catch (Exception e) {
      closeQuietly(own, cache, curator);
      throw new ConnectionException("could not publish the HTTP address in ZooKeeper: " + e, e);
    }
  }

  /** The HTTP URL of the node whose replication address is {@code replicationAddress}, if it published one. */
  Optional<URI> httpOf(String replicationAddress) {
    if (replicationAddress == null) {
      return Optional.empty();
    }
    return cache.stream()
        .filter(d -> !d.getPath().equals(path) && d.getData() != null)
        .map(this::parse)
        .filter(n -> n != null && replicationAddress.equals(n.path("replication").asText(null)))
        .map(n -> URI.create(n.path("http").asText()))
        .findFirst();
  }

  private JsonNode parse(ChildData d) {
    try {
      return json.readTree(d.getData());
    } catch (IOException e) {
      return null;
    }
  }

  private static void closeQuietly(PersistentNode own, CuratorCache cache, CuratorFramework curator) {
    try {
      if (cache != null) {
        cache.close();
      }
      if (own != null) {
        own.close();
      }
    } catch (IOException | RuntimeException e) {
      // Closing the client below ends the session and removes the ephemeral entry anyway.
    } finally {
      curator.close();
    }
  }

  @Override
  public void close() {
    closeQuietly(own, cache, curator);
  }
}
