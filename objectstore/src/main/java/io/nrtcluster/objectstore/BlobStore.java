package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.CorruptLocalFileException;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import org.apache.lucene.store.Directory;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.DeleteObjectsResponse;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * One bucket of an S3-compatible store, over the AWS SDK v2 (Apache HTTP client). Every call is
 * synchronous and safe from many threads. One store holds one client and its connection pool ({@link
 * ObjectStoreConfig#maxParallelTransfers()} + 2 connections); {@link #view} makes more stores over
 * the same client, each with its own counters (a host's indexes share one client this way). A store
 * and its views together have at most as many requests under way as the pool has connections: a
 * request waits for a free one (interruptibly) rather than fail for want of it.
 *
 * <p>Guarantees:
 *
 * <ul>
 *   <li>A refusal (HTTP 401/403, no such bucket) is an {@link ObjectStoreAccessException} naming the
 *       bucket, raised on the first answer: it is never retried. {@link #open} checks access once,
 *       so wrong credentials fail at start.
 *   <li>A transient failure (no connection, a dropped or timed-out connection, HTTP 5xx, 429, 408) is
 *       retried up to {@link ObjectStoreConfig#maxAttempts()} times with jittered exponential backoff,
 *       then reported as {@link ObjectStoreUnavailableException}. The SDK's own retries are off, so
 *       the bound is exactly this one.
 *   <li>What a failed write leaves is invisible: a single PUT is atomic, and a multipart upload that
 *       fails is aborted (and, were the abort lost too, never completed, so never visible).
 *   <li>An index file uploaded with {@link #putFile(String, Directory, FileEntry)} is stored only if
 *       the bytes sent match its Lucene checksum; otherwise its upload fails as above, typed.
 *   <li>An interrupt ends a call with {@link InterruptedIOException} and the interrupt flag set.
 *   <li>A call bound to a deadline (the lease-bound writes and deletes of backups and sweeps) starts
 *       no attempt at or after it, never sleeps a backoff past it, and bounds each attempt to the time
 *       left (the SDK's per-request {@code apiCallAttemptTimeout}); stopped by it, the call throws
 *       {@code LeaseExpiredException} (an {@link ObjectStoreUnavailableException}), whatever attempts
 *       {@link ObjectStoreConfig#maxAttempts()} had left.
 * </ul>
 */
@Experimental
public final class BlobStore implements Closeable {
  /** Where a download's bytes go; each attempt starts over from a fresh stream. */
  @FunctionalInterface
  public interface Sink {
    /** A stream for one attempt, empty; what an earlier attempt wrote must be discarded. */
    OutputStream begin() throws IOException;
  }

  private static final int DELETE_BATCH = 1000;

  private final ObjectStoreConfig config;
  private final SharedClient client;
  /** Whether this store built {@link #client} (and so closes it), rather than being a view of it. */
  private final boolean owner;
  private final S3Client s3;
  private final ObjectStoreMetrics metrics;
  private final NodeLog log;
  /** Sends every request of this store: its attempts, retries, deadline and share of the client's connections. */
  private final StoreCalls calls;
  private final FileUploads uploads;

  private BlobStore(ObjectStoreConfig config, SharedClient client, boolean owner, ObjectStoreMetrics metrics, NodeLog log) {
    this.config = config;
    this.client = client;
    this.owner = owner;
    this.s3 = client.s3();
    this.metrics = metrics;
    this.log = log;
    this.calls = new StoreCalls(config, client, metrics, log);
    this.uploads = new FileUploads(config, s3, calls, this::head);
  }

  /**
   * Connects and checks that the bucket exists and this identity may use it.
   *
   * @throws ObjectStoreAccessException wrong credentials, no permission or no such bucket (at once)
   * @throws ObjectStoreUnavailableException the store did not answer within the retries
   */
  public static BlobStore open(ObjectStoreConfig config, ObjectStoreMetrics metrics, NodeLog log) throws IOException {
    BlobStore store = new BlobStore(config, SharedClient.build(config), true, metrics, log);
    try {
      store.checkAccess();
    } catch (IOException | RuntimeException e) {
      store.close();
      throw e;
    }
    return store;
  }

  /**
   * A connection that checks nothing yet: for a node whose store may be down at start (its backups
   * retry and report; its bootstrap falls back to the primary). Wrong credentials show at the first
   * request, as {@link ObjectStoreAccessException}.
   */
  static BlobStore connect(ObjectStoreConfig config, ObjectStoreMetrics metrics, NodeLog log) {
    return new BlobStore(config, SharedClient.build(config), true, metrics, log);
  }

  /** {@link #open(ObjectStoreConfig, ObjectStoreMetrics, NodeLog)} with a log named after the bucket. */
  public static BlobStore open(ObjectStoreConfig config, ObjectStoreMetrics metrics) throws IOException {
    return open(config, metrics, new NodeLog(LoggerFactory.getLogger(BlobStore.class), "s3:" + config.bucket(), () -> -1));
  }

  /**
   * A store over this one's client, connection pool and bucket, with its own counters and log: what it
   * sends is counted in {@code metrics} only. Closing the view closes nothing; closing the store that
   * built the client (the one {@link #open} or {@code connect} returned) closes it for every view.
   */
  public BlobStore view(ObjectStoreMetrics metrics, NodeLog log) {
    return new BlobStore(config, client, false, metrics, log);
  }

  /** For tests: the number of store clients (each with its own connection pool) this process has built. */
  static int clientsBuilt() {
    return SharedClient.built();
  }

  /** For tests: {@code hook} runs before each request attempt of every call of this store. */
  void beforeAttempt(StoreCalls.AttemptHook hook) {
    calls.beforeAttempt(hook);
  }

  public ObjectStoreConfig config() {
    return config;
  }

  public ObjectStoreMetrics metrics() {
    return metrics;
  }

  /** The bucket exists and this identity may use it (HEAD bucket). */
  public void checkAccess() throws IOException {
    checkAccess(Deadline.NONE);
  }

  /**
   * {@link #checkAccess()}, sending no attempt from {@code deadline} on: a host's bounded look at a
   * store that may not answer.
   *
   * @throws LeaseExpiredException the store did not answer before the deadline
   */
  void checkAccess(Deadline deadline) throws IOException {
    calls.call("check access to", "", deadline,
        limit -> s3.headBucket(b -> b.bucket(config.bucket()).overrideConfiguration(limit)));
  }

  /** Writes a small object at once (a manifest, a marker). */
  public void put(String key, byte[] bytes) throws IOException {
    put(key, bytes, Deadline.NONE);
  }

  /**
   * {@link #put(String, byte[])}, sending no attempt from {@code deadline} on.
   *
   * @throws LeaseExpiredException the deadline came first; an attempt cut at it may still be applied
   */
  void put(String key, byte[] bytes, Deadline deadline) throws IOException {
    calls.call("put", key, deadline, limit -> s3.putObject(
        b -> b.bucket(config.bucket()).key(key).contentLength((long) bytes.length).overrideConfiguration(limit),
        RequestBody.fromBytes(bytes)));
    metrics.uploaded(bytes.length);
  }

  /**
   * Uploads {@code length} bytes of the file {@code name} of {@code dir} to {@code key}, as they are:
   * one PUT below {@link ObjectStoreConfig#multipartThreshold()}, a multipart upload from there on.
   */
  public void putFile(String key, Directory dir, String name, long length) throws IOException {
    putFile(key, dir, name, length, null);
  }

  /**
   * Uploads the index file {@code file} of {@code dir} to {@code key}, as {@link #putFile(String,
   * Directory, String, long)} does, verifying it against its Lucene checksum on the way: the bytes
   * that go up are the bytes checked (see {@link UploadCheck}).
   *
   * @throws CorruptLocalFileException the local file's length, checksum or footer is not the one
   *     {@code file} records (named; never retried); nothing was stored under {@code key}
   */
  public void putFile(String key, Directory dir, FileEntry file) throws IOException {
    putFile(key, dir, file.name(), file.length(), new UploadCheck(key, file));
  }

  private void putFile(String key, Directory dir, String name, long length, UploadCheck check) throws IOException {
    uploads.upload(key, dir, name, length, check);
    metrics.uploaded(length);
  }

  /** A small object's bytes, or empty if there is no such object. */
  public Optional<byte[]> get(String key) throws IOException {
    ByteArrayOutputStream[] holder = new ByteArrayOutputStream[1];
    long n = get(key, () -> holder[0] = new ByteArrayOutputStream());
    return n < 0 ? Optional.empty() : Optional.of(holder[0].toByteArray());
  }

  /**
   * Streams an object into {@code sink} (a fresh stream per attempt).
   *
   * @return the bytes written, or -1 if there is no such object
   */
  public long get(String key, Sink sink) throws IOException {
    return download("download", key, null, 0, Long.MAX_VALUE, sink);
  }

  /**
   * Streams {@code length} bytes of an object from {@code offset} into {@code sink} (one ranged GET,
   * a fresh stream per attempt). Fewer bytes (none if the object ends before {@code offset}) mean
   * the object is shorter than the range.
   *
   * @return the bytes written, or -1 if there is no such object
   */
  public long getRange(String key, long offset, long length, Sink sink) throws IOException {
    Checks.inRange("offset", offset, 0, Long.MAX_VALUE);
    Checks.inRange("length", length, 1, Long.MAX_VALUE - offset);
    String range = "bytes=" + offset + "-" + (offset + length - 1);
    return download("download " + range + " of", key, range, offset, length, sink);
  }

  private long download(String what, String key, String range, long offset, long length, Sink sink) throws IOException {
    return calls.call(what, key, () -> {
      ResponseInputStream<GetObjectResponse> in;
      try {
        in = s3.getObject(b -> b.bucket(config.bucket()).key(key).range(range));
      } catch (S3Exception e) {
        if (e.statusCode() == 404 && !StoreCalls.noSuchBucket(e)) {
          return -1L;
        }
        if (e.statusCode() == 416 && range != null) {
          return 0L; // the object ends before the range starts
        }
        throw e;
      }
      try (in) {
        OutputStream out = sink.begin();
        if (range != null && in.response().contentRange() == null
            && copy(in, OutputStream.nullOutputStream(), offset) < offset) {
          return 0L; // a store that ignores ranges sends the whole object, and this one ends before the range
        }
        long n = copy(in, out, length);
        out.flush();
        metrics.downloaded(n);
        return n;
      }
    });
  }

  /** Copies at most {@code limit} bytes; returns how many. */
  private static long copy(InputStream in, OutputStream out, long limit) throws IOException {
    byte[] buffer = new byte[64 << 10];
    long n = 0;
    while (n < limit) {
      int r = in.read(buffer, 0, (int) Math.min(buffer.length, limit - n));
      if (r < 0) {
        break;
      }
      out.write(buffer, 0, r);
      n += r;
    }
    return n;
  }

  /** The object's size and age, or empty if there is none. */
  public Optional<ObjectInfo> head(String key) throws IOException {
    return calls.call("head", key, () -> {
      try {
        HeadObjectResponse r = s3.headObject(b -> b.bucket(config.bucket()).key(key));
        return Optional.of(new ObjectInfo(key, r.contentLength(), r.lastModified()));
      } catch (S3Exception e) {
        if (e.statusCode() == 404) {
          return Optional.<ObjectInfo>empty();
        }
        throw e;
      }
    });
  }

  /** Every object whose key starts with {@code prefix}, in key order. */
  public List<ObjectInfo> list(String prefix) throws IOException {
    return list(prefix, Deadline.NONE);
  }

  /**
   * {@link #list(String)}, sending no attempt from {@code deadline} on (each page's request is
   * bounded by what is left).
   *
   * @throws LeaseExpiredException the store did not answer before the deadline
   */
  List<ObjectInfo> list(String prefix, Deadline deadline) throws IOException {
    return calls.call("list", prefix, deadline, limit -> {
      List<ObjectInfo> out = new ArrayList<>();
      for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(config.bucket()).prefix(prefix)
          .overrideConfiguration(limit)).contents()) {
        out.add(new ObjectInfo(o.key(), o.size(), o.lastModified()));
      }
      return out;
    });
  }

  /** Deletes the objects (missing ones are no error). */
  public void delete(Collection<String> keys) throws IOException {
    delete(keys, Deadline.NONE);
  }

  /**
   * {@link #delete(Collection)}, sending no attempt from {@code deadline} on: the batches sent before
   * it are deleted, the others are not.
   *
   * @throws LeaseExpiredException the deadline came first
   */
  void delete(Collection<String> keys, Deadline deadline) throws IOException {
    List<String> all = List.copyOf(keys);
    for (int from = 0; from < all.size(); from += DELETE_BATCH) {
      List<String> keysOfBatch = all.subList(from, Math.min(all.size(), from + DELETE_BATCH));
      if (!client.batchDelete()) {
        for (String key : keysOfBatch) {
          delete(key, deadline);
        }
        continue;
      }
      List<ObjectIdentifier> batch = keysOfBatch.stream().map(k -> ObjectIdentifier.builder().key(k).build()).toList();
      DeleteObjectsResponse r;
      try {
        r = calls.call("delete", batch.get(0).key() + " (+" + (batch.size() - 1) + ")", deadline,
            limit -> s3.deleteObjects(b -> b.bucket(config.bucket())
                .delete(Delete.builder().objects(batch).quiet(true).build()).overrideConfiguration(limit)));
      } catch (NrtClusterException e) {
        if (!(e instanceof LeaseExpiredException) && e.getCause() instanceof S3Exception s3e && s3e.statusCode() == 501) {
          // Some S3-compatible stores lack multi-object delete: one by one from now on.
          log.info("bucket {} has no multi-object delete; deleting one object per request", config.bucket());
          client.noBatchDelete();
          from -= DELETE_BATCH;
          continue;
        }
        throw e;
      }
      if (r.hasErrors() && !r.errors().isEmpty()) {
        var e = r.errors().get(0);
        throw new ObjectStoreUnavailableException(
            "could not delete " + e.key() + " from bucket " + config.bucket() + ": " + e.code() + " " + e.message(), 1, null);
      }
    }
  }

  /** Deletes one object (a missing one is no error). */
  public void delete(String key) throws IOException {
    delete(key, Deadline.NONE);
  }

  /**
   * {@link #delete(String)}, sending no attempt from {@code deadline} on.
   *
   * @throws LeaseExpiredException the deadline came first; an attempt cut at it may still be applied
   */
  void delete(String key, Deadline deadline) throws IOException {
    calls.call("delete", key, deadline,
        limit -> s3.deleteObject(b -> b.bucket(config.bucket()).key(key).overrideConfiguration(limit)));
  }

  /**
   * Closes the client if this store built it, after which every call of this store and its views
   * fails with {@link ObjectStoreUnavailableException} without a request; a {@link #view} closes nothing.
   */
  @Override
  public void close() {
    if (owner) {
      client.close();
    }
  }
}
