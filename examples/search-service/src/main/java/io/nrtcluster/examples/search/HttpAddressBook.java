package io.nrtcluster.examples.search;

import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.node.ClusterNode;
import java.net.URI;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Where each node's HTTP API is, so a replica can forward a write to the primary's HTTP API: the
 * library names the primary by its replication address ({@code ClusterNode.primaryAddress()}), and
 * every node publishes its HTTP URL with its membership, as the member metadata entry {@value
 * #METADATA_KEY} ({@code HostConfig.memberMetadata}); it disappears with the node's membership. No
 * ZooKeeper session of its own: peers' URLs come from {@link ClusterNode#members()}.
 *
 * <p>Lookups are served from a local map from replication address to URL, filled from the members
 * of the hosted indexes when an address is not in it (so a lookup costs a ZooKeeper round trip only
 * the first time a primary is looked up), and refreshed whenever members pass through {@link
 * #httpOf(MemberInfo)} (the status page's do); {@link #forget} drops an entry that turned out to be wrong (a restarted node
 * listening elsewhere).
 */
final class HttpAddressBook {
  /** The member metadata key under which a node publishes its HTTP URL. */
  static final String METADATA_KEY = "http";

  private final Supplier<Collection<ClusterNode>> indexes;
  private final Map<String, URI> byReplicationAddress = new ConcurrentHashMap<>();

  /** @param indexes the indexes this node hosts: their members are where peers' URLs are read */
  HttpAddressBook(Supplier<Collection<ClusterNode>> indexes) {
    this.indexes = indexes;
  }

  /** The metadata a node publishes so that peers find its HTTP API at {@code http}. */
  static Map<String, String> metadata(URI http) {
    return Map.of(METADATA_KEY, http.toString());
  }

  /** The HTTP URL of the node whose replication address is {@code replicationAddress}, if it published one. */
  Optional<URI> httpOf(String replicationAddress) {
    if (replicationAddress == null) {
      return Optional.empty();
    }
    URI known = byReplicationAddress.get(replicationAddress);
    if (known != null) {
      return Optional.of(known);
    }
    for (ClusterNode node : indexes.get()) {
      // The cache: routing a request must not wait for ZooKeeper.
      learn(node.cachedMembers());
      known = byReplicationAddress.get(replicationAddress);
      if (known != null) {
        return Optional.of(known);
      }
    }
    return Optional.empty();
  }

  /** The HTTP URL {@code member} published, if any (and remembers it). */
  Optional<URI> httpOf(MemberInfo member) {
    String published = member.metadata().get(METADATA_KEY);
    if (published == null) {
      return Optional.empty();
    }
    try {
      URI http = URI.create(published);
      byReplicationAddress.put(member.address(), http);
      return Optional.of(http);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private void learn(List<MemberInfo> members) {
    members.forEach(this::httpOf);
  }

  /** Drops what is known of {@code replicationAddress}: the next lookup reads the members again. */
  void forget(String replicationAddress) {
    if (replicationAddress != null) {
      byReplicationAddress.remove(replicationAddress);
    }
  }
}
