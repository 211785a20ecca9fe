package io.nrtcluster.examples.search;

import io.nrtcluster.common.Checks;
import io.nrtcluster.node.Durability;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.IndexSettings;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * Settings of one search-service node. Built with {@link #builder()}, which validates every bound
 * and names the offending field.
 *
 * @param host the cluster node underneath (id, cluster, data, ZooKeeper, replication port)
 * @param httpHost address the HTTP API listens on and advertises to the other nodes (for forwarded
 *     writes)
 * @param httpPort HTTP port (0: a free one)
 * @param indexes the indexes this node hosts (all nodes of a cluster host the same ones)
 * @param maxBodyBytes largest request body accepted (413 beyond)
 * @param maxPageSize largest {@code size} of a search page
 * @param pointInTimeMaxAge how long a point-in-time stays available for paging after a newer one
 *     replaced it
 * @param pointInTimeMaxVersions how many recent points-in-time a node keeps at most
 * @param refreshInterval how often the primary publishes a new point-in-time by itself
 * @param pollInterval how often a node looks for a new point-in-time to keep (in every role)
 * @param forwardTimeout bound of a write forwarded to the primary, a failover it follows included (the
 *     forward goes to the new primary as soon as the cluster names it: {@link WriteForwarder})
 * @param maxVersionWait longest wait of a search for {@code min_version}
 * @param httpThreads threads serving HTTP requests
 * @param durability the acknowledgement of a {@code refresh=true} write that names no {@code
 *     durability} parameter; default {@link Durability#REPLICATED}: writes arriving over HTTP have no
 *     source the service could replay them from, so an acknowledgement that only the primary holds
 *     ({@link Durability#LOCAL}) is lost whenever the primary crashes before a replica copied it
 * @param minInSyncReplicas how many in-sync replicas must hold a version before a replicated
 *     acknowledgement ({@link IndexSettings#minInSyncReplicas()}, default 1): 0 lets a single node (or
 *     a primary whose replicas all left the set) acknowledge alone
 */
public record SearchServiceConfig(
    HostConfig host,
    String httpHost,
    int httpPort,
    List<String> indexes,
    int maxBodyBytes,
    int maxPageSize,
    Duration pointInTimeMaxAge,
    int pointInTimeMaxVersions,
    Duration refreshInterval,
    Duration pollInterval,
    Duration forwardTimeout,
    Duration maxVersionWait,
    int httpThreads,
    Durability durability,
    int minInSyncReplicas) {

  public SearchServiceConfig {
    Checks.notNull("host", host);
    Checks.notBlank("httpHost", httpHost);
    Checks.inRange("httpPort", httpPort, 0, 65535);
    Checks.notNull("indexes", indexes);
    if (indexes.isEmpty()) {
      throw new IllegalArgumentException("indexes must name at least one index");
    }
    indexes = List.copyOf(indexes);
    for (String index : indexes) {
      Checks.safeName("indexes", index);
    }
    if (new LinkedHashSet<>(indexes).size() != indexes.size()) {
      throw new IllegalArgumentException("indexes must not name an index twice, got " + indexes);
    }
    if (host.embeddedZooKeeper() && indexes.contains("zookeeper")) {
      throw new IllegalArgumentException("indexes: 'zookeeper' is the embedded ZooKeeper's data directory");
    }
    Checks.inRange("maxBodyBytes", maxBodyBytes, 1024, 512 * 1024 * 1024);
    Checks.inRange("maxPageSize", maxPageSize, 1, 10_000);
    Checks.atMost("pointInTimeMaxAge", pointInTimeMaxAge, Duration.ofHours(24));
    Checks.inRange("pointInTimeMaxVersions", pointInTimeMaxVersions, 1, 100_000);
    Checks.atMost("refreshInterval", refreshInterval, Duration.ofHours(1));
    Checks.atMost("pollInterval", pollInterval, Duration.ofSeconds(10));
    Checks.atMost("forwardTimeout", forwardTimeout, Duration.ofMinutes(10));
    Checks.atMost("maxVersionWait", maxVersionWait, Duration.ofMinutes(10));
    Checks.inRange("httpThreads", httpThreads, 1, 1024);
    Checks.notNull("durability", durability);
    Checks.inRange("minInSyncReplicas", minInSyncReplicas, 0, 64);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link SearchServiceConfig}; everything but {@link #host} has a default. */
  public static final class Builder {
    private HostConfig host;
    private String httpHost;
    private int httpPort;
    private List<String> indexes = List.of("docs");
    private int maxBodyBytes = 10 * 1024 * 1024;
    private int maxPageSize = 1000;
    private Duration pointInTimeMaxAge = Duration.ofMinutes(5);
    private int pointInTimeMaxVersions = 256;
    private Duration refreshInterval = Duration.ofSeconds(1);
    private Duration pollInterval = Duration.ofMillis(10);
    private Duration forwardTimeout = Duration.ofSeconds(10);
    private Duration maxVersionWait = Duration.ofSeconds(10);
    private int httpThreads = 8;
    private Durability durability = Durability.REPLICATED;
    private int minInSyncReplicas = IndexSettings.DEFAULT_MIN_IN_SYNC_REPLICAS;

    public Builder host(HostConfig v) {
      host = v;
      return this;
    }

    /** Default: the host's replication bind address. */
    public Builder httpHost(String v) {
      httpHost = v;
      return this;
    }

    public Builder httpPort(int v) {
      httpPort = v;
      return this;
    }

    public Builder indexes(List<String> v) {
      indexes = v;
      return this;
    }

    public Builder maxBodyBytes(int v) {
      maxBodyBytes = v;
      return this;
    }

    public Builder maxPageSize(int v) {
      maxPageSize = v;
      return this;
    }

    public Builder pointInTimeMaxAge(Duration v) {
      pointInTimeMaxAge = v;
      return this;
    }

    public Builder pointInTimeMaxVersions(int v) {
      pointInTimeMaxVersions = v;
      return this;
    }

    public Builder refreshInterval(Duration v) {
      refreshInterval = v;
      return this;
    }

    public Builder pollInterval(Duration v) {
      pollInterval = v;
      return this;
    }

    public Builder forwardTimeout(Duration v) {
      forwardTimeout = v;
      return this;
    }

    public Builder maxVersionWait(Duration v) {
      maxVersionWait = v;
      return this;
    }

    public Builder httpThreads(int v) {
      httpThreads = v;
      return this;
    }

    /** Default {@link Durability#REPLICATED}: see {@link SearchServiceConfig#durability()}. */
    public Builder durability(Durability v) {
      durability = v;
      return this;
    }

    /** Default 1: see {@link SearchServiceConfig#minInSyncReplicas()}. */
    public Builder minInSyncReplicas(int v) {
      minInSyncReplicas = v;
      return this;
    }

    public SearchServiceConfig build() {
      Checks.notNull("host", host);
      return new SearchServiceConfig(host, httpHost != null ? httpHost : host.bindHost(), httpPort, indexes,
          maxBodyBytes, maxPageSize, pointInTimeMaxAge, pointInTimeMaxVersions, refreshInterval, pollInterval,
          forwardTimeout, maxVersionWait, httpThreads, durability, minInSyncReplicas);
    }
  }
}
