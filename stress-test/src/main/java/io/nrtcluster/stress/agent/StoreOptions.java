package io.nrtcluster.stress.agent;

import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.S3TestServer;
import java.net.URI;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The object store a harness node process (chaos or bench) opens its index through, as a picocli
 * mixin: without {@code --store-endpoint} the node has no store. The harness passes {@link
 * #args(S3TestServer)} for its own in-JVM server; path-style addressing, as S3-compatible stores need.
 */
public final class StoreOptions {
  @Option(names = "--store-endpoint", description = "The object store's endpoint (http://host:port); none: no store.")
  URI endpoint;

  @Option(names = "--store-bucket", defaultValue = "nrt-backups")
  String bucket;

  @Option(names = "--store-access-key")
  String accessKey;

  @Option(names = "--store-secret-key")
  String secretKey;

  /** The command-line options that point a node process at {@code server}. */
  public static List<String> args(S3TestServer server) {
    return List.of("--store-endpoint", server.endpoint().toString(), "--store-bucket", S3TestServer.BUCKET,
        "--store-access-key", S3TestServer.ACCESS_KEY, "--store-secret-key", S3TestServer.SECRET_KEY);
  }

  /** Whether the node has a store. */
  public boolean enabled() {
    return endpoint != null;
  }

  /** The connection; callers add their timeouts and leases. */
  public ObjectStoreConfig.Builder config() {
    ObjectStoreConfig.Builder b = ObjectStoreConfig.builder().bucket(bucket).endpoint(endpoint).pathStyle(true);
    if (accessKey != null) {
      b.credentials(accessKey, secretKey);
    }
    return b;
  }
}
