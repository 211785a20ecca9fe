package io.nrtcluster.objectstore;

import java.io.Closeable;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.LegacyMd5Plugin;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * The one S3 client of a {@link BlobStore} and of every view made from it: its HTTP connection pool,
 * the gate that lets no more requests be under way than the pool has connections, and what was
 * learned about the bucket. Thread-safe. Only the store that built it closes it.
 *
 * <p>The gate exists because the SDK fails a request that waits too long for a pooled connection: with
 * many views (a host's indexes) transferring at once, requests wait here instead, in arrival order,
 * for as long as it takes (or until their deadline), and the pool never runs dry.
 */
final class SharedClient implements Closeable {
  private static final AtomicInteger BUILT = new AtomicInteger();

  private final S3Client s3;
  /** One permit per pooled connection, fair so that no view's requests are overtaken for long. */
  private final Semaphore connections;
  private volatile boolean batchDelete = true;
  private volatile boolean closed;

  private SharedClient(S3Client s3, int connections) {
    this.s3 = s3;
    this.connections = new Semaphore(connections, true);
  }

  /** A client for {@code config}'s bucket, with a pool of {@code maxParallelTransfers + 2} connections. */
  static SharedClient build(ObjectStoreConfig config) {
    // Each transfer holds one connection; the two more let a backup's marker, HEADs or listings, or a
    // sweep, go on beside a full set of transfers.
    int connections = config.maxParallelTransfers() + 2;
    AwsCredentialsProvider credentials = config.explicitCredentials()
        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(config.accessKeyId(), config.secretAccessKey()))
        : DefaultCredentialsProvider.builder().build();
    var builder = S3Client.builder()
        .region(Region.of(config.region()))
        .forcePathStyle(config.pathStyle())
        .credentialsProvider(credentials)
        .httpClientBuilder(ApacheHttpClient.builder()
            .maxConnections(connections)
            .connectionTimeout(config.connectTimeout())
            // The gate lets a request through only when a connection is free, so it never waits in the
            // pool; were it to (a connection not given back), it fails as soon as a new one would.
            .connectionAcquisitionTimeout(config.connectTimeout())
            .socketTimeout(config.socketTimeout()))
        // Retries are BlobStore's (one bound, typed errors, counted); the SDK's would multiply them.
        .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry()))
        // Every byte is verified against Lucene's own checksums on restore; the SDK's newer default
        // (CRC trailers on every upload) is not understood by many S3-compatible stores.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        // Requests that need a checksum (DeleteObjects) carry Content-MD5, which every S3-compatible
        // store understands. SDK 2.40 still adds its x-amz-checksum-crc32 header to them, which some
        // stores (S3Proxy) answer with 501: BlobStore then deletes one object per request.
        .addPlugin(LegacyMd5Plugin.create());
    config.endpointOverride().ifPresent(builder::endpointOverride);
    S3Client s3 = builder.build();
    BUILT.incrementAndGet();
    return new SharedClient(s3, connections);
  }

  /** For tests: how many clients this process has built. */
  static int built() {
    return BUILT.get();
  }

  S3Client s3() {
    return s3;
  }

  /**
   * Takes a connection for one request attempt, waiting while all are taken, at most until {@code
   * deadline}; give it back with {@link #release()} once the attempt is over (its response read).
   *
   * @return false if the deadline came first (nothing taken)
   * @throws InterruptedException interrupted while waiting (nothing taken)
   */
  boolean acquire(Deadline deadline) throws InterruptedException {
    if (!deadline.bounded()) {
      connections.acquire();
      return true;
    }
    long remaining = deadline.remainingNanos();
    return remaining > 0 && connections.tryAcquire(remaining, TimeUnit.NANOSECONDS);
  }

  void release() {
    connections.release();
  }

  /** Whether the bucket takes multi-object deletes (true until it answered one with 501). */
  boolean batchDelete() {
    return batchDelete;
  }

  void noBatchDelete() {
    batchDelete = false;
  }

  /** True once closed: every view's calls then fail, typed, without a request. */
  boolean closed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
    s3.close();
  }
}
