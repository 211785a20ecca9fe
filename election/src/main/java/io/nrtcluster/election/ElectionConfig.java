package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
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
 * @param suspicionDelay how long this node, as a replica, may fail to reach the primary it follows
 *     (connection closed and not re-established, or no reply to its heartbeats) before it records
 *     a suspicion of that primary's generation in ZooKeeper; when a strict majority of the live
 *     non-primary members suspect the current generation, the best-ranked other member claims the
 *     next epoch without waiting for the primary's session to expire (only when {@link #automatic}).
 *     {@link Duration#ZERO} turns failover on suspicion off on this node: it neither records
 *     suspicions nor elects on them (keep the setting the same on every node). Otherwise at least
 *     {@value #MIN_SUSPICION_MILLIS} ms and at most 10 minutes; default 500 ms
 * @param memberMetadata the application metadata this node's member record starts with ({@link
 *     MemberInfo#metadata()}; bounds in {@link MemberMetadata}); empty by default
 */
@Internal
public record ElectionConfig(
    ZkLayout layout, int nodeId, String address, Duration settleTime, Duration retryInterval, Duration zkTimeout,
    boolean automatic, Duration suspicionDelay, Map<String, String> memberMetadata) {
  /** The shortest non-zero {@link #suspicionDelay}. */
  public static final long MIN_SUSPICION_MILLIS = 20;
  /** Default {@link #suspicionDelay}. */
  public static final Duration DEFAULT_SUSPICION_DELAY = Duration.ofMillis(500);

  public ElectionConfig {
    Checks.notNull("layout", layout);
    Checks.inRange("nodeId", nodeId, 0, 65535);
    Checks.notBlank("address", address);
    Checks.positive("settleTime", settleTime);
    Checks.positive("retryInterval", retryInterval);
    Checks.positive("zkTimeout", zkTimeout);
    checkSuspicionDelay("suspicionDelay", suspicionDelay);
    memberMetadata = MemberMetadata.checked("memberMetadata", memberMetadata);
  }

  /**
   * Checks a {@link #suspicionDelay} (zero, or {@value #MIN_SUSPICION_MILLIS} ms to 10 minutes) and
   * returns it; an {@link IllegalArgumentException} naming {@code field} otherwise.
   */
  public static Duration checkSuspicionDelay(String field, Duration value) {
    Checks.notNull(field, value);
    if (!value.isZero() && (value.toMillis() < MIN_SUSPICION_MILLIS || value.compareTo(Duration.ofMinutes(10)) > 0)) {
      throw new IllegalArgumentException(field + " must be 0 (off) or in [" + MIN_SUSPICION_MILLIS + " ms, 10 min], got " + value);
    }
    return value;
  }

  /** Whether this node records suspicions and elects on them ({@link #suspicionDelay} not zero, failover automatic). */
  public boolean failoverOnSuspicion() {
    return automatic && !suspicionDelay.isZero();
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
    private Duration suspicionDelay = DEFAULT_SUSPICION_DELAY;
    private Map<String, String> memberMetadata = Map.of();

    public Builder memberMetadata(Map<String, String> v) {
      memberMetadata = v;
      return this;
    }

    public Builder automatic(boolean v) {
      automatic = v;
      return this;
    }

    /** See {@link ElectionConfig#suspicionDelay()}; {@link Duration#ZERO} turns failover on suspicion off. */
    public Builder suspicionDelay(Duration v) {
      suspicionDelay = v;
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
      return new ElectionConfig(layout, nodeId, address, settleTime, retryInterval, zkTimeout, automatic, suspicionDelay, memberMetadata);
    }
  }
}
