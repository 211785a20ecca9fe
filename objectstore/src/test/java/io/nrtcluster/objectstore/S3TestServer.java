package io.nrtcluster.objectstore;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.BlobMetadata;
import org.jclouds.blobstore.domain.MultipartPart;
import org.jclouds.blobstore.domain.MultipartUpload;
import org.jclouds.blobstore.domain.PageSet;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.GetOptions;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.jclouds.blobstore.options.PutOptions;
import org.jclouds.blobstore.util.ForwardingBlobStore;
import org.jclouds.http.HttpResponse;
import org.jclouds.http.HttpResponseException;
import org.jclouds.io.Payload;

/**
 * A real S3-compatible server for tests: S3Proxy in this JVM on loopback (or a given address), over jclouds' in-memory
 * backend (objects survive {@link #stop()}/{@link #restart()}). Requests are
 * signed and checked (AWS v2/v4) with {@link #ACCESS_KEY}/{@link #SECRET_KEY}.
 *
 * <p>Faults, each applied to what the server does, not to the client: {@link #failNext(int)} makes
 * the next storage operations answer HTTP 500; {@link #stopDuringNextUpload()} stops the whole
 * server while the next object or part is arriving (the client sees its connection drop); {@link
 * #delayEach(Duration)} makes every storage operation slow. Direct
 * access to the stored bytes ({@link #read}, {@link #write}, {@link #remove}) lets tests damage objects.
 */
public final class S3TestServer implements AutoCloseable {
  public static final String ACCESS_KEY = "nrt-test-access";
  public static final String SECRET_KEY = "nrt-test-secret";
  public static final String BUCKET = "nrt-backups";

  private final BlobStoreContext context;
  private final FaultyBlobStore blobs;
  private final AtomicInteger failNext = new AtomicInteger();
  private final AtomicBoolean stopDuringUpload = new AtomicBoolean();
  private final AtomicLong operations = new AtomicLong();
  private final AtomicLong delayMillis = new AtomicLong();
  private final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> listings = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.ConcurrentHashMap<String, AtomicLong> rangedGets = new java.util.concurrent.ConcurrentHashMap<>();
  private final String host;
  private volatile S3Proxy proxy;
  private int port;

  private S3TestServer(BlobStoreContext context, String host) {
    this.context = context;
    this.host = host;
    this.blobs = new FaultyBlobStore(context.getBlobStore());
  }

  /**
   * A server over jclouds' in-memory backend, with {@link #BUCKET}. Objects survive {@link #stop()}
   * and {@link #restart()} (the backend lives as long as this object). The in-memory backend, not the
   * filesystem one, because the latter lists the directories it makes for keys with slashes as objects.
   */
  public static S3TestServer start() throws Exception {
    return start("127.0.0.1");
  }

  /**
   * {@link #start()}, listening on {@code host} (an address of this machine) instead of loopback: for
   * processes in other network namespaces, which reach the harness on its bridge address.
   */
  public static S3TestServer start(String host) throws Exception {
    BlobStoreContext context = ContextBuilder.newBuilder(new org.jclouds.blobstore.TransientApiMetadata())
        .buildView(BlobStoreContext.class);
    S3TestServer server = new S3TestServer(context, host);
    server.blobs.createContainerInLocation(null, BUCKET);
    server.startProxy(0);
    return server;
  }

  private synchronized void startProxy(int wantedPort) throws Exception {
    S3Proxy p = S3Proxy.builder()
        .blobStore(blobs)
        .endpoint(URI.create("http://" + host + ":" + wantedPort))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .jettyMaxThreads(16)
        .build();
    p.start();
    for (int i = 0; i < 500 && !p.getState().equals("STARTED"); i++) {
      Thread.sleep(10); // Jetty reports STARTED right after start() returns; bounded just in case
    }
    port = p.getPort();
    proxy = p;
  }

  public URI endpoint() {
    return URI.create("http://" + host + ":" + port);
  }

  /** Settings for this server: endpoint, path style, the test credentials, quick retries. */
  public ObjectStoreConfig.Builder config() {
    return ObjectStoreConfig.builder()
        .bucket(BUCKET)
        .endpoint(endpoint())
        .pathStyle(true)
        .credentials(ACCESS_KEY, SECRET_KEY)
        .maxAttempts(4)
        .backoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .connectTimeout(Duration.ofSeconds(2))
        .socketTimeout(Duration.ofSeconds(10))
        .partSize(ObjectStoreConfig.MIN_PART_SIZE)
        .multipartThreshold(ObjectStoreConfig.MIN_PART_SIZE)
        .backupLease(Duration.ofSeconds(30))
        .sweepLease(Duration.ofSeconds(2))
        .clockMargin(Duration.ofMillis(500));
  }

  /** Stops listening; stored objects stay. */
  public synchronized void stop() throws Exception {
    S3Proxy p = proxy;
    if (p != null) {
      proxy = null;
      p.stop();
    }
  }

  /** Starts again on the same port, with the same objects. */
  public synchronized void restart() throws Exception {
    stop();
    startProxy(port);
  }

  public boolean isRunning() {
    return proxy != null;
  }

  /** The next {@code n} storage operations answer HTTP 500. */
  public void failNext(int n) {
    failNext.set(n);
  }

  /** Every storage operation from now on takes {@code delay} longer (a slow store); zero for none. */
  public void delayEach(Duration delay) {
    delayMillis.set(delay.toMillis());
  }

  /** The next object or part upload stops the server while its bytes arrive. */
  public void stopDuringNextUpload() {
    stopDuringUpload.set(true);
  }

  /** Storage operations served so far (requests refused before reaching storage are not counted). */
  public long operations() {
    return operations.get();
  }

  /** Listings served so far of exactly {@code prefix}. */
  public long listings(String prefix) {
    AtomicLong n = listings.get(prefix);
    return n == null ? 0 : n.get();
  }

  /** GETs of a range of {@code key} served so far. */
  public long rangedGets(String key) {
    AtomicLong n = rangedGets.get(key);
    return n == null ? 0 : n.get();
  }

  /** An object's stored bytes, or null. */
  public byte[] read(String key) throws IOException {
    Blob blob = context.getBlobStore().getBlob(BUCKET, key);
    if (blob == null) {
      return null;
    }
    try (InputStream in = blob.getPayload().openStream()) {
      return in.readAllBytes();
    }
  }

  /** Replaces (or creates) an object with {@code bytes}, as if the store had damaged it. */
  public void write(String key, byte[] bytes) {
    BlobStore raw = context.getBlobStore();
    raw.putBlob(BUCKET, raw.blobBuilder(key).payload(bytes).contentLength(bytes.length).build());
  }

  public void remove(String key) {
    context.getBlobStore().removeBlob(BUCKET, key);
  }

  /** Every key under {@code prefix}. */
  public List<String> keys(String prefix) {
    BlobStore raw = context.getBlobStore();
    List<String> out = new java.util.ArrayList<>();
    String marker = null;
    do {
      ListContainerOptions options = ListContainerOptions.Builder.prefix(prefix).recursive();
      if (marker != null) {
        options = options.afterMarker(marker);
      }
      PageSet<? extends StorageMetadata> page = raw.list(BUCKET, options);
      for (StorageMetadata m : page) {
        out.add(m.getName());
      }
      marker = page.getNextMarker();
    } while (marker != null);
    return out;
  }

  @Override
  public void close() throws IOException {
    try {
      stop();
    } catch (IOException | RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    } finally {
      context.close();
    }
  }

  private void fault() {
    operations.incrementAndGet();
    long delay = delayMillis.get();
    if (delay > 0) {
      try {
        Thread.sleep(delay); // the store's own latency, not a wait for a condition
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // Jetty's pool interrupts its threads when stopping
      }
    }
    if (failNext.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
      throw new HttpResponseException("injected fault", null,
          HttpResponse.builder().statusCode(500).message("injected fault").build());
    }
  }

  private void maybeStopDuring(Payload payload) {
    if (!stopDuringUpload.compareAndSet(true, false)) {
      return;
    }
    try (InputStream in = payload.openStream()) {
      in.readNBytes(1024); // the upload has begun
    } catch (IOException e) {
      // the point is to cut it anyway
    }
    CountDownLatch stopped = new CountDownLatch(1);
    Thread stopper = new Thread(() -> {
      try {
        stop();
      } catch (Exception e) {
        // stopping is best effort; the test sees whether the client noticed
      } finally {
        stopped.countDown();
      }
    }, "s3-test-stopper");
    stopper.start();
    try {
      stopped.await(2, TimeUnit.SECONDS); // Jetty closes the connection at once; its pool may wait for this thread
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // Jetty's pool interrupts its threads when stopping
    }
    throw new IllegalStateException("server stopped mid-upload");
  }

  /** The storage under S3Proxy, with the faults above. */
  private final class FaultyBlobStore extends ForwardingBlobStore {
    FaultyBlobStore(BlobStore delegate) {
      super(delegate);
    }

    @Override
    public boolean containerExists(String container) {
      fault();
      return super.containerExists(container);
    }

    @Override
    public String putBlob(String container, Blob blob) {
      fault();
      maybeStopDuring(blob.getPayload());
      return super.putBlob(container, blob);
    }

    @Override
    public String putBlob(String container, Blob blob, PutOptions options) {
      fault();
      maybeStopDuring(blob.getPayload());
      return super.putBlob(container, blob, options);
    }

    @Override
    public MultipartPart uploadMultipartPart(MultipartUpload mpu, int partNumber, Payload payload) {
      fault();
      maybeStopDuring(payload);
      return super.uploadMultipartPart(mpu, partNumber, payload);
    }

    @Override
    public String completeMultipartUpload(MultipartUpload mpu, List<MultipartPart> parts) {
      fault();
      return super.completeMultipartUpload(mpu, parts);
    }

    @Override
    public Blob getBlob(String container, String name) {
      fault();
      return super.getBlob(container, name);
    }

    @Override
    public Blob getBlob(String container, String name, GetOptions options) {
      fault();
      if (options != null && !options.getRanges().isEmpty()) {
        rangedGets.computeIfAbsent(name, k -> new AtomicLong()).incrementAndGet();
      }
      return super.getBlob(container, name, options);
    }

    @Override
    public BlobMetadata blobMetadata(String container, String name) {
      fault();
      return super.blobMetadata(container, name);
    }

    @Override
    public PageSet<? extends StorageMetadata> list(String container, ListContainerOptions options) {
      fault();
      listings.computeIfAbsent(String.valueOf(options.getPrefix()), k -> new AtomicLong()).incrementAndGet();
      return super.list(container, options);
    }

    @Override
    public void removeBlob(String container, String name) {
      fault();
      super.removeBlob(container, name);
    }

    @Override
    public void removeBlobs(String container, Iterable<String> names) {
      fault();
      super.removeBlobs(container, names);
    }
  }
}
