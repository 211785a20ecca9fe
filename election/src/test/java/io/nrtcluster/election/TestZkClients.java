package io.nrtcluster.election;

import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/** The Curator client settings the election tests use against their in-process ZooKeeper. */
final class TestZkClients {
  private TestZkClients() {}

  /** A builder for {@code connectString} with short timeouts and a few quick retries. */
  static CuratorFrameworkFactory.Builder builder(String connectString) {
    return CuratorFrameworkFactory.builder().connectString(connectString)
        .sessionTimeoutMs(4000).connectionTimeoutMs(2000).retryPolicy(new ExponentialBackoffRetry(100, 3));
  }
}
