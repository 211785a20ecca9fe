package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.nio.charset.StandardCharsets;
import java.security.NoSuchAlgorithmException;
import java.util.Collections;
import java.util.List;
import org.apache.curator.framework.AuthInfo;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.api.ACLProvider;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * ZooKeeper digest credentials of a cluster. With them, every Curator client the library builds
 * authenticates as {@code user}, and every znode it creates (the cluster root, parents Curator
 * creates on its own, ephemeral and sequential znodes alike) gets one ACL entry: this digest
 * identity with all permissions. Nobody else can read, list, create, change, delete or re-ACL
 * anything there. ZooKeeper still answers {@code exists} (a znode's stat) to anyone: names and
 * stats are not secret, data is.
 *
 * <p>Without credentials (a null {@code ZooKeeperAuth} wherever one is accepted) the library
 * creates znodes with open ACLs, as before. Built with {@link #builder()}, which validates and names
 * the bad field; {@link #toString()} never shows the password.
 *
 * @param user digest user name: 1-128 of {@code [A-Za-z0-9_.-]}
 * @param password the password, 1-1024 characters without line breaks
 */
@Stable
public record ZooKeeperAuth(String user, String password) {
  /** The ZooKeeper authentication scheme used. */
  public static final String SCHEME = "digest";

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public ZooKeeperAuth {
    Checks.safeName("zooKeeperAuth.user", user);
    if (password == null || password.isEmpty()) {
      throw new IllegalArgumentException("zooKeeperAuth.password must be a non-empty string");
    }
    if (password.length() > 1024) {
      throw new IllegalArgumentException("zooKeeperAuth.password must be at most 1024 characters, got " + password.length());
    }
    if (password.indexOf('\n') >= 0 || password.indexOf('\r') >= 0) {
      throw new IllegalArgumentException("zooKeeperAuth.password must not contain line breaks");
    }
  }

  /** A builder with neither user nor password set; {@link Builder#build()} requires both. */
  public static Builder builder() {
    return new Builder();
  }

  /** The identity ZooKeeper records in ACLs: {@code user:base64(sha1(user:password))}. */
  public String digestId() {
    try {
      return DigestAuthenticationProvider.generateDigest(user + ":" + password);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("ZooKeeper's digest algorithm is not available in this JVM", e);
    }
  }

  /** The ACL every znode the library creates gets: this identity, all permissions, nobody else. */
  public List<ACL> acl() {
    // Not List.of: ZooKeeper's client asks the list whether it contains null, which List.of refuses.
    return Collections.singletonList(new ACL(ZooDefs.Perms.ALL, new Id(SCHEME, digestId())));
  }

  /** The credentials as Curator sends them when a session is established (and re-established). */
  public AuthInfo authInfo() {
    return new AuthInfo(SCHEME, (user + ":" + password).getBytes(StandardCharsets.UTF_8));
  }

  /** A Curator ACL provider handing {@link #acl()} to every path, the parents Curator creates included. */
  public ACLProvider aclProvider() {
    List<ACL> acl = acl();
    return new ACLProvider() {
      @Override
      public List<ACL> getDefaultAcl() {
        return acl;
      }

      @Override
      public List<ACL> getAclForPath(String path) {
        return acl;
      }
    };
  }

  /**
   * Applies {@code auth} to a Curator client builder: its credentials and ACL provider, or nothing
   * (open ACLs) when it is null. Every client the library builds goes through here.
   */
  public static CuratorFrameworkFactory.Builder configure(CuratorFrameworkFactory.Builder builder, ZooKeeperAuth auth) {
    if (auth == null) {
      return builder;
    }
    return builder.authorization(List.of(auth.authInfo())).aclProvider(auth.aclProvider());
  }

  @Override
  public String toString() {
    return "ZooKeeperAuth[scheme=" + SCHEME + ", user=" + user + ", password=***]";
  }

  /** Builds validated {@link ZooKeeperAuth} credentials. */
  public static final class Builder {
    private String user;
    private String password;

    /** The ZooKeeper user name (a safe name: letters, digits, {@code .}, {@code _}, {@code -}). */
    public Builder user(String v) {
      user = v;
      return this;
    }

    /** The user's password: non-empty, at most 1024 characters, no line breaks. */
    public Builder password(String v) {
      password = v;
      return this;
    }

    /** The credentials; throws {@link IllegalArgumentException} naming the bad field. */
    public ZooKeeperAuth build() {
      return new ZooKeeperAuth(user, password);
    }
  }
}
