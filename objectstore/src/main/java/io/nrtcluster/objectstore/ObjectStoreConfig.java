package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;

/**
 * Immutable settings of one object store connection (one bucket, one key prefix). Built with {@link
 * #builder()}, which validates every bound and names the offending field. {@link #toString()} never
 * prints the secret key.
 *
 * @param bucket the S3 bucket (3 to 63 of {@code [a-z0-9.-]}, starting and ending with a letter or digit)
 * @param prefix key prefix under which everything of this store lives; empty, or ends with {@code /}
 *     (added if missing); never starts with {@code /}
 * @param endpoint the store's endpoint ({@code http(s)://host:port}) for S3-compatible stores; null
 *     means AWS S3's own endpoint for {@link #region}
 * @param region the signing region ({@code us-east-1} by default; S3-compatible stores mostly ignore it)
 * @param pathStyle path-style addressing ({@code endpoint/bucket/key}) instead of virtual-hosted
 *     ({@code bucket.endpoint/key}); most S3-compatible stores need it
 * @param accessKeyId explicit access key; null (with {@link #secretAccessKey}) means the SDK's default
 *     credentials chain (environment, system properties, profile, container or instance role)
 * @param secretAccessKey the secret for {@link #accessKeyId}; set both or neither
 * @param maxAttempts attempts per request (1 to 20, 5 by default) before a failure is reported as
 *     {@link ObjectStoreUnavailableException}; refusals ({@link ObjectStoreAccessException}) are never retried
 * @param backoffMin first delay between attempts (jittered, doubling up to {@link #backoffMax})
 * @param backoffMax longest delay between attempts
 * @param multipartThreshold files of at least this many bytes go up as a multipart upload (at least
 *     {@link #partSize}, 64 MiB by default)
 * @param partSize bytes per multipart part (5 MiB, the S3 minimum, to 5 GiB; 16 MiB by default)
 * @param maxParallelTransfers most files (or parts) moving at once per index: per backup service,
 *     restore or bootstrap (1 to 64, 4 by default). The HTTP connection pool holds this plus 2
 *     connections; it belongs to one {@link BlobStore} and is shared by its views ({@link
 *     HostObjectStore}: by all the indexes of a host), which together have at most that many
 *     requests under way; the others wait for a free connection, in order
 * @param connectTimeout longest wait for a TCP connection to the store
 * @param socketTimeout longest wait for the next bytes of an answer
 * @param backupLease longest a backup may take from announcing itself to writing its manifest; past
 *     it the backup gives up ({@link BackupAbandonedException}) and retention may remove its files.
 *     The manifest's PUT starts no attempt, first or retry, once the lease has passed, and its attempt
 *     under way is cut there, whatever {@link #maxAttempts}, {@link #backoffMax} and {@link
 *     #socketTimeout} would allow. 10 minutes by default. See {@link RetentionSweeper}
 * @param sweepLease longest a retention sweep keeps deleting after it announced itself; past it the
 *     sweep stops: no delete request, first attempt or retry, starts once the lease has passed, and
 *     the attempt under way is cut there, whatever {@link #maxAttempts}, {@link #backoffMax} and {@link
 *     #socketTimeout} would allow. A backup that finds a sweep under way waits at most this plus
 *     {@link #clockMargin} for it. 2 minutes by default
 * @param clockMargin allowance for request latency and clock rates between machines in the lease
 *     arguments (30 s by default; less than both leases)
 */
@Stable
public record ObjectStoreConfig(
    String bucket,
    String prefix,
    URI endpoint,
    String region,
    boolean pathStyle,
    String accessKeyId,
    String secretAccessKey,
    int maxAttempts,
    Duration backoffMin,
    Duration backoffMax,
    long multipartThreshold,
    long partSize,
    int maxParallelTransfers,
    Duration connectTimeout,
    Duration socketTimeout,
    Duration backupLease,
    Duration sweepLease,
    Duration clockMargin) {

  /** The smallest part S3 accepts (except a last part). */
  public static final long MIN_PART_SIZE = 5L << 20;
  /** The largest part (and single PUT) S3 accepts. */
  public static final long MAX_PART_SIZE = 5L << 30;

  private static final Duration MAX_DURATION = Duration.ofDays(1);

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public ObjectStoreConfig {
    Checks.notBlank("bucket", bucket);
    if (bucket.length() < 3 || bucket.length() > 63 || !bucket.matches("[a-z0-9][a-z0-9.-]*[a-z0-9]")) {
      throw new IllegalArgumentException(
          "bucket must be 3-63 of [a-z0-9.-] starting and ending with a letter or digit, got '" + bucket + "'");
    }
    prefix = normalizePrefix(prefix);
    if (endpoint != null) {
      String scheme = endpoint.getScheme();
      if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || endpoint.getHost() == null) {
        throw new IllegalArgumentException("endpoint must be http(s)://host[:port], got '" + endpoint + "'");
      }
    }
    Checks.notBlank("region", region);
    if ((accessKeyId == null) != (secretAccessKey == null)) {
      throw new IllegalArgumentException(
          (accessKeyId == null ? "accessKeyId" : "secretAccessKey")
              + " must be set together with " + (accessKeyId == null ? "secretAccessKey" : "accessKeyId"));
    }
    if (accessKeyId != null) {
      Checks.notBlank("accessKeyId", accessKeyId);
      Checks.notBlank("secretAccessKey", secretAccessKey);
    }
    Checks.inRange("maxAttempts", maxAttempts, 1, 20);
    Checks.atMost("backoffMin", backoffMin, MAX_DURATION);
    Checks.atMost("backoffMax", backoffMax, MAX_DURATION);
    if (backoffMax.compareTo(backoffMin) < 0) {
      throw new IllegalArgumentException("backoffMax must be >= backoffMin, got " + backoffMax + " < " + backoffMin);
    }
    Checks.inRange("partSize", partSize, MIN_PART_SIZE, MAX_PART_SIZE);
    Checks.inRange("multipartThreshold", multipartThreshold, partSize, MAX_PART_SIZE);
    Checks.inRange("maxParallelTransfers", maxParallelTransfers, 1, 64);
    Checks.atMost("connectTimeout", connectTimeout, MAX_DURATION);
    Checks.atMost("socketTimeout", socketTimeout, MAX_DURATION);
    Checks.atMost("backupLease", backupLease, MAX_DURATION);
    Checks.atMost("sweepLease", sweepLease, MAX_DURATION);
    Checks.atMost("clockMargin", clockMargin, MAX_DURATION);
    if (clockMargin.compareTo(backupLease) >= 0 || clockMargin.compareTo(sweepLease) >= 0) {
      throw new IllegalArgumentException(
          "clockMargin must be less than backupLease and sweepLease, got " + clockMargin);
    }
  }

  private static String normalizePrefix(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      return "";
    }
    if (prefix.startsWith("/") || prefix.contains("//") || prefix.length() > 512 || prefix.chars().anyMatch(c -> c < 0x20)) {
      throw new IllegalArgumentException(
          "prefix must not start with '/', contain '//' or control characters, or exceed 512 chars, got '" + prefix + "'");
    }
    return prefix.endsWith("/") ? prefix : prefix + "/";
  }

  /** True when explicit credentials are configured; false means the SDK's default chain. */
  public boolean explicitCredentials() {
    return accessKeyId != null;
  }

  /** The endpoint, when one is configured (an S3-compatible store). */
  public Optional<URI> endpointOverride() {
    return Optional.ofNullable(endpoint);
  }

  @Override
  public String toString() {
    return "ObjectStoreConfig[bucket=" + bucket + ", prefix=" + prefix + ", endpoint=" + endpoint
        + ", region=" + region + ", pathStyle=" + pathStyle
        + ", credentials=" + (accessKeyId == null ? "default chain" : accessKeyId + "/****")
        + ", maxAttempts=" + maxAttempts + ", backoff=" + backoffMin + ".." + backoffMax
        + ", multipartThreshold=" + multipartThreshold + ", partSize=" + partSize
        + ", maxParallelTransfers=" + maxParallelTransfers + ", connectTimeout=" + connectTimeout
        + ", socketTimeout=" + socketTimeout + ", backupLease=" + backupLease + ", sweepLease=" + sweepLease
        + ", clockMargin=" + clockMargin + "]";
  }

  /** A builder with every default; the bucket has none and is required (no endpoint: AWS S3 itself). */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this configuration. */
  public Builder toBuilder() {
    return new Builder().bucket(bucket).prefix(prefix).endpoint(endpoint).region(region).pathStyle(pathStyle)
        .credentials(accessKeyId, secretAccessKey).maxAttempts(maxAttempts).backoff(backoffMin, backoffMax)
        .multipartThreshold(multipartThreshold).partSize(partSize).maxParallelTransfers(maxParallelTransfers)
        .connectTimeout(connectTimeout).socketTimeout(socketTimeout).backupLease(backupLease)
        .sweepLease(sweepLease).clockMargin(clockMargin);
  }

  /** Builds a validated {@link ObjectStoreConfig}; only the bucket has no default. */
  public static final class Builder {
    private String bucket;
    private String prefix = "";
    private URI endpoint;
    private String region = "us-east-1";
    private boolean pathStyle;
    private String accessKeyId;
    private String secretAccessKey;
    private int maxAttempts = 5;
    private Duration backoffMin = Duration.ofMillis(200);
    private Duration backoffMax = Duration.ofSeconds(10);
    private long multipartThreshold = 64L << 20;
    private long partSize = 16L << 20;
    private int maxParallelTransfers = 4;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration socketTimeout = Duration.ofSeconds(30);
    private Duration backupLease = Duration.ofMinutes(10);
    private Duration sweepLease = Duration.ofMinutes(2);
    private Duration clockMargin = Duration.ofSeconds(30);

    /** Sets {@link ObjectStoreConfig#bucket()}; no default. */
    public Builder bucket(String v) {
      bucket = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#prefix()}; default {@code ""}. */
    public Builder prefix(String v) {
      prefix = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#endpoint()}; no default. */
    public Builder endpoint(URI v) {
      endpoint = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#region()}; default {@code "us-east-1"}. */
    public Builder region(String v) {
      region = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#pathStyle()}; default {@code false}. */
    public Builder pathStyle(boolean v) {
      pathStyle = v;
      return this;
    }

    /** Explicit credentials; {@code (null, null)} means the SDK's default chain. */
    public Builder credentials(String accessKeyId, String secretAccessKey) {
      this.accessKeyId = accessKeyId;
      this.secretAccessKey = secretAccessKey;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#maxAttempts()}; default {@code 5}. */
    public Builder maxAttempts(int v) {
      maxAttempts = v;
      return this;
    }

    /**
     * Sets {@link ObjectStoreConfig#backoffMin()} and {@link ObjectStoreConfig#backoffMax()} together
     * (the max at least the min).
     */
    public Builder backoff(Duration min, Duration max) {
      backoffMin = min;
      backoffMax = max;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#multipartThreshold()}; default {@code 64L << 20}. */
    public Builder multipartThreshold(long v) {
      multipartThreshold = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#partSize()}; default {@code 16L << 20}. */
    public Builder partSize(long v) {
      partSize = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#maxParallelTransfers()}; default {@code 4}. */
    public Builder maxParallelTransfers(int v) {
      maxParallelTransfers = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#connectTimeout()}; default {@code Duration.ofSeconds(5)}. */
    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#socketTimeout()}; default {@code Duration.ofSeconds(30)}. */
    public Builder socketTimeout(Duration v) {
      socketTimeout = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#backupLease()}; default {@code Duration.ofMinutes(10)}. */
    public Builder backupLease(Duration v) {
      backupLease = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#sweepLease()}; default {@code Duration.ofMinutes(2)}. */
    public Builder sweepLease(Duration v) {
      sweepLease = v;
      return this;
    }

    /** Sets {@link ObjectStoreConfig#clockMargin()}; default {@code Duration.ofSeconds(30)}. */
    public Builder clockMargin(Duration v) {
      clockMargin = v;
      return this;
    }

    /**
     * The validated configuration; throws {@link IllegalArgumentException} naming the first bad or
     * missing field.
     */
    public ObjectStoreConfig build() {
      return new ObjectStoreConfig(bucket, prefix, endpoint, region, pathStyle, accessKeyId, secretAccessKey,
          maxAttempts, backoffMin, backoffMax, multipartThreshold, partSize, maxParallelTransfers, connectTimeout,
          socketTimeout, backupLease, sweepLease, clockMargin);
    }
  }
}
