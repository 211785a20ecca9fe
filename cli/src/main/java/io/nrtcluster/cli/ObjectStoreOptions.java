package io.nrtcluster.cli;

import io.nrtcluster.objectstore.BlobStore;
import io.nrtcluster.objectstore.ManifestStore;
import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.ObjectStoreMetrics;
import io.nrtcluster.objectstore.StoreLayout;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Where an index's backups are, shared by {@code nrt restore} and {@code nrt backup status}: the S3
 * connection (AWS S3 or any S3-compatible store) and the cluster and index names.
 */
final class ObjectStoreOptions {
  @Option(names = "--bucket", required = true, paramLabel = "B", description = "S3 bucket holding the backups.")
  String bucket;

  @Option(names = "--prefix", defaultValue = "", paramLabel = "P", description = "Key prefix in the bucket (default: none).")
  String prefix;

  @Option(names = "--endpoint", paramLabel = "URL",
      description = "Endpoint of an S3-compatible store (http(s)://host:port); omit for AWS S3.")
  URI endpoint;

  @Option(names = "--region", defaultValue = "us-east-1", paramLabel = "R", description = "Signing region (default: ${DEFAULT-VALUE}).")
  String region;

  @Option(names = "--path-style", description = "Path-style addressing (endpoint/bucket/key), which most S3-compatible stores need.")
  boolean pathStyle;

  @Option(names = "--access-key", paramLabel = "ID",
      description = "Access key id; with --secret-key-file. Without both: the AWS SDK's default chain (environment, profile, role).")
  String accessKey;

  @Option(names = "--secret-key-file", paramLabel = "FILE", description = "File holding the secret key for --access-key.")
  Path secretKeyFile;

  @Option(names = "--cluster", required = true, paramLabel = "C", description = "Cluster name.")
  String cluster;

  @Option(names = "--index", required = true, paramLabel = "I", description = "Index name.")
  String index;

  ObjectStoreConfig config() throws IOException {
    return storeConfig(bucket, prefix, endpoint, region, pathStyle, accessKey, secretKeyFile);
  }

  /** A store connection from command-line values; the secret is read from its file. */
  static ObjectStoreConfig storeConfig(String bucket, String prefix, URI endpoint, String region, boolean pathStyle,
      String accessKey, Path secretKeyFile) throws IOException {
    if ((accessKey == null) != (secretKeyFile == null)) {
      throw new Main.CliException("the access key and the secret key file go together");
    }
    String secret = secretKeyFile == null ? null : Files.readString(secretKeyFile, StandardCharsets.UTF_8).strip();
    return ObjectStoreConfig.builder().bucket(bucket).prefix(prefix).endpoint(endpoint).region(region)
        .pathStyle(pathStyle).credentials(accessKey, secret).build();
  }

  /** Connects (wrong credentials or a missing bucket fail here, naming the bucket). */
  BlobStore open() throws IOException {
    return BlobStore.open(config(), new ObjectStoreMetrics());
  }

  ManifestStore manifests(BlobStore store) {
    return new ManifestStore(store, StoreLayout.of(store.config().prefix(), cluster, index));
  }
}
