package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Durations;
import io.nrtcluster.common.Internal;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * One connected ZooKeeper client (a Curator client) with the library's settings: its credentials
 * and ACLs ({@link ZooKeeperAuth#configure}), its session and connection timeouts and its retry
 * policy. Nodes share one per process among their indexes; operator tools open their own. Built
 * with {@link #builder()}; {@link Builder#connect()} returns only once the client is connected.
 *
 * <p>Modules other than {@code election} hold a session without naming Curator's types: they hand
 * it to the election's classes ({@link IndexElection}, {@link OperatorRequests}, {@link
 * ClusterView}, {@link ZooKeeperAccess}).
 *
 * <p>While open, a session corrects Curator when it wrongly believes a connected client is
 * disconnected, within the session (see {@code ConnectedFlagRepair}), so an expiry cannot leave a
 * node out of ZooKeeper for good.
 */
@Internal
public final class ZooKeeperSession implements Closeable {
  private final CuratorFramework client;
  private final ZooKeeperAuth auth;
  private final String connectString;
  private final ConnectedFlagRepair flagRepair;

  private ZooKeeperSession(CuratorFramework client, ZooKeeperAuth auth, String connectString) {
    this.client = client;
    this.auth = auth;
    this.connectString = connectString;
    this.flagRepair = ConnectedFlagRepair.start(client, Duration.ofMillis(client.getZookeeperClient().getConnectionTimeoutMs()));
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The credentials this session authenticates with and creates znodes for; null: none, open ACLs. */
  public ZooKeeperAuth auth() {
    return auth;
  }

  /** The connect string the session was opened with. */
  public String connectString() {
    return connectString;
  }

  /**
   * The Curator client underneath, for the election's own classes and for tests that inject
   * ZooKeeper faults (for example a session expiry); other modules' main code goes through the
   * election's typed API instead.
   */
  public CuratorFramework curator() {
    return client;
  }

  /** Ends the session: its ephemeral znodes go at once. Close the recipes built on it first. */
  @Override
  public void close() {
    flagRepair.close();
    client.close();
  }

  /** Builds and connects a validated {@link ZooKeeperSession}. */
  public static final class Builder {
    private String connectString;
    private ZooKeeperAuth auth;
    private ZooKeeperAuth alsoAuthenticatedAs;
    private Duration sessionTimeout = Duration.ofSeconds(10);
    private Duration connectionTimeout = Duration.ofSeconds(10);
    private int maxRetries = 10;
    private Duration maxRetrySleep = Duration.ofSeconds(2);

    /** ZooKeeper's {@code host:port[,host:port...]} connect string. */
    public Builder connectString(String v) {
      connectString = v;
      return this;
    }

    /** Credentials (null: none, open ACLs); znodes the session creates get their ACL. */
    public Builder auth(ZooKeeperAuth v) {
      auth = v;
      return this;
    }

    /**
     * Further credentials the session also authenticates with, without creating znodes for them:
     * for re-securing a tree from its previous credentials to {@link #auth}'s (null: none).
     */
    public Builder alsoAuthenticatedAs(ZooKeeperAuth v) {
      alsoAuthenticatedAs = v;
      return this;
    }

    /** ZooKeeper session timeout: how long the session outlives a lost connection. */
    public Builder sessionTimeout(Duration v) {
      sessionTimeout = v;
      return this;
    }

    /** How long {@link #connect()} and each connection attempt wait for ZooKeeper. */
    public Builder connectionTimeout(Duration v) {
      connectionTimeout = v;
      return this;
    }

    /** How often an operation is retried after a connection loss (exponential back-off from 100 ms). */
    public Builder maxRetries(int v) {
      maxRetries = v;
      return this;
    }

    /** The longest back-off between two retries. */
    public Builder maxRetrySleep(Duration v) {
      maxRetrySleep = v;
      return this;
    }

    /**
     * Starts the client and waits up to the connection timeout for it to connect; a {@link
     * ConnectionException} when it does not (nothing is left running then). Wrong credentials are
     * not found out here (ZooKeeper accepts any digest at login): {@link ZooKeeperAccess#verify}
     * finds them.
     */
    public ZooKeeperSession connect() throws ConnectionException {
      Checks.notBlank("connectString", connectString);
      Checks.positive("sessionTimeout", sessionTimeout);
      Checks.positive("connectionTimeout", connectionTimeout);
      Checks.inRange("maxRetries", maxRetries, 0, 29);
      Checks.positive("maxRetrySleep", maxRetrySleep);
      if (alsoAuthenticatedAs != null && auth == null) {
        throw new IllegalArgumentException("alsoAuthenticatedAs needs auth to be set");
      }
      CuratorFrameworkFactory.Builder builder = ZooKeeperAuth.configure(CuratorFrameworkFactory.builder(), auth);
      if (alsoAuthenticatedAs != null) {
        List<AuthInfo> identities = new ArrayList<>();
        identities.add(alsoAuthenticatedAs.authInfo());
        identities.add(auth.authInfo());
        builder.authorization(identities);
      }
      CuratorFramework client = builder.connectString(connectString)
          .sessionTimeoutMs((int) sessionTimeout.toMillis())
          .connectionTimeoutMs((int) Math.min(connectionTimeout.toMillis(), sessionTimeout.toMillis()))
          .retryPolicy(new ExponentialBackoffRetry(100, maxRetries, (int) maxRetrySleep.toMillis()))
          .build();
      client.start();
      try {
        if (!client.blockUntilConnected((int) connectionTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
          client.close();
          throw new ConnectionException("ZooKeeper at " + connectString + " unreachable within " + Durations.format(connectionTimeout));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        client.close();
        throw new ConnectionException("interrupted while connecting to ZooKeeper", e);
      }
      return new ZooKeeperSession(client, auth, connectString);
    }
  }
}
