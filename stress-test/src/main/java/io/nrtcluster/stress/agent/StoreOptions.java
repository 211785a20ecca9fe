package io.nrtcluster.stress.agent;

import io.nrtcluster.objectstore.ObjectStoreConfig;
import io.nrtcluster.objectstore.S3TestServer;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Properties;
import picocli.CommandLine.Option;

/**
 * The object store a harness node process (chaos or bench) opens its index through, as a picocli
 * mixin: without {@code --store-endpoint} the node has no store. The harness passes {@link
 * #args(S3TestServer, Path)} for its own in-JVM server; path-style addressing, as S3-compatible
 * stores need. The credentials travel in a file readable by its owner only ({@code
 * --store-credentials-file}, a {@link Properties} file with {@code accessKey} and {@code secretKey}),
 * never on the command line, which every local user reads ({@code ps}, {@code /proc/<pid>/cmdline}).
 */
public final class StoreOptions {
  /** The credentials file's name in the directory the harness gives {@link #args}. */
  static final String CREDENTIALS_FILE = "store-credentials.properties";

  @Option(names = "--store-endpoint", description = "The object store's endpoint (http://host:port); none: no store.")
  URI endpoint;

  @Option(names = "--store-bucket", defaultValue = "nrt-backups")
  String bucket;

  @Option(names = "--store-credentials-file", paramLabel = "FILE",
      description = "Properties file with accessKey and secretKey; none: the AWS SDK's default chain.")
  Path credentialsFile;

  /**
   * The command-line options that point a node process at {@code server}; its credentials are written
   * (owner read/write only) to a file in {@code dir}, which the options name.
   */
  public static List<String> args(S3TestServer server, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path file = dir.resolve(CREDENTIALS_FILE);
    Files.deleteIfExists(file);
    Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Properties p = new Properties();
    p.setProperty("accessKey", S3TestServer.ACCESS_KEY);
    p.setProperty("secretKey", S3TestServer.SECRET_KEY);
    try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
      p.store(w, "object store credentials of the harness's nodes");
    }
    return List.of("--store-endpoint", server.endpoint().toString(), "--store-bucket", S3TestServer.BUCKET,
        "--store-credentials-file", file.toString());
  }

  /** Whether the node has a store. */
  public boolean enabled() {
    return endpoint != null;
  }

  /** The connection; callers add their timeouts and leases. */
  public ObjectStoreConfig.Builder config() throws IOException {
    ObjectStoreConfig.Builder b = ObjectStoreConfig.builder().bucket(bucket).endpoint(endpoint).pathStyle(true);
    if (credentialsFile != null) {
      Properties p = new Properties();
      try (Reader r = Files.newBufferedReader(credentialsFile, StandardCharsets.UTF_8)) {
        p.load(r);
      }
      String accessKey = p.getProperty("accessKey");
      String secretKey = p.getProperty("secretKey");
      if (accessKey == null || secretKey == null) {
        throw new IllegalArgumentException("--store-credentials-file " + credentialsFile
            + " must hold both accessKey and secretKey");
      }
      b.credentials(accessKey, secretKey);
    }
    return b;
  }
}
