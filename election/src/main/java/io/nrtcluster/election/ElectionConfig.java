package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import java.time.Duration;
import java.util.Map;

/**
 * Settings of one index's election on one node. Built with {@link #builder()}, which validates
 * every bound and names the offending field.
 *
 * @param layout where the index's state lives in ZooKeeper
 * @param nodeId this node's cluster-unique id
 * @param address {@code host:port} other nodes reach this node's replication endpoint at
 * @param settleTime how long a node waits, after seeing no primary, for the others to report their
 *     progress before the best-ranked one claims the next epoch
 * @param retryInterval how often a node that is not the best candidate looks again while there is
 *     still no primary (the best one may have died before claiming)
 * @param zkTimeout bound of each ZooKeeper operation the election waits for
 * @param automatic whether a node claims the primary role by itself when there is none; when false
 *     only a node an operator designated (a forced promotion) ever claims
 * @param memberMetadata the application metadata this node's member record starts with ({@link
 *     MemberInfo#metadata()}; bounds in {@link MemberMetadata}); empty by default
 */
public record ElectionConfig(
    ZkLayout layout, int nodeId, String address, Duration settleTime, Duration retryInterval, Duration zkTimeout,
    boolean automatic, Map<String, String> memberMetadata) {
  public ElectionConfig {
    Checks.notNull("layout", layout);
    Checks.inRange("nodeId", nodeId, 0, 65535);
    Checks.notBlank("address", address);
    Checks.positive("settleTime", settleTime);
    Checks.positive("retryInterval", retryInterval);
    Checks.positive("zkTimeout", zkTimeout);
    memberMetadata = MemberMetadata.checked("memberMetadata", memberMetadata);
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a validated {@link ElectionConfig}. */
  public static final class Builder {
    private ZkLayout layout;
    private int nodeId;
    private String address;
    private Duration settleTime = Duration.ofMillis(500);
    private Duration retryInterval = Duration.ofSeconds(1);
    private Duration zkTimeout = Duration.ofSeconds(10);
    private boolean automatic = true;
    private Map<String, String> memberMetadata = Map.of();

    public Builder memberMetadata(Map<String, String> v) {
      memberMetadata = v;
      return this;
    }

    public Builder automatic(boolean v) {
      automatic = v;
      return this;
    }

    public Builder layout(ZkLayout v) {
      layout = v;
      return this;
    }

    public Builder nodeId(int v) {
      nodeId = v;
      return this;
    }

    public Builder address(String v) {
      address = v;
      return this;
    }

    public Builder settleTime(Duration v) {
      settleTime = v;
      return this;
    }

    public Builder retryInterval(Duration v) {
      retryInterval = v;
      return this;
    }

    public Builder zkTimeout(Duration v) {
      zkTimeout = v;
      return this;
    }

    public ElectionConfig build() {
      return new ElectionConfig(layout, nodeId, address, settleTime, retryInterval, zkTimeout, automatic, memberMetadata);
    }
  }
}
