package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.Stable;
import java.time.Duration;

/**
 * Immutable settings of one {@link Transport}. Built with {@link #builder()}, which validates every
 * bound and names the offending field.
 *
 * @param maxFrameBytes hard limit of one frame; a longer frame closes the connection that sent it
 * @param chunkBytes size of one file-data frame
 * @param streamWindowBytes bytes the sender of a file may have in flight before the receiver grants
 *     more credit; bounds the memory one file stream can use on the receiving side
 * @param maxRequestsInFlight requests and file streams one connection may have open at once
 * @param maxRequestBytesInFlight encoded bytes of the requests one connection may have waiting or
 *     running at once; a peer that sends more gets {@code TOO_MANY_REQUESTS}, so no connection can
 *     pile up more than this much request memory. At least {@code maxFrameBytes}
 * @param ioThreads Netty event-loop threads for all connections of this transport
 * @param requestThreads threads that run request handlers (never the event loop)
 * @param connectTimeout bound of a TCP connect plus handshake
 * @param handshakeTimeout a peer that has not completed the handshake by then is dropped
 * @param requestTimeout bound on waiting for the reply to one request
 * @param readTimeout a file stream that receives nothing for this long fails
 * @param idleTimeout an established connection on which no whole frame arrives for this long is
 *     closed; each side pings an otherwise quiet connection every third of it, so only a dead,
 *     stalled or silent peer is cut off
 * @param writeBufferLowBytes once a connection's unsent outbound bytes fall to this mark again, it
 *     is writable: file streams resume and its peer's frames are read again. At most {@code
 *     writeBufferHighBytes}
 * @param writeBufferHighBytes when a connection's unsent outbound bytes exceed this mark, it stops
 *     being writable: file streams pause and nothing more is read from its peer until the peer has
 *     taken the backlog down to {@code writeBufferLowBytes}, so a peer that sends requests and never
 *     reads the replies stalls only itself (and is closed after {@code idleTimeout}, since nothing
 *     is read from it meanwhile)
 * @param zeroCopy stream files with {@code FileRegion} (sendfile); ignored when TLS is on, where
 *     file data is read into buffers and written in chunks (a {@code FileRegion} cannot be encrypted)
 * @param faults fault injection, {@link FaultInjection#NONE} in production
 * @param tls TLS for every connection, or null for plaintext
 */
@Stable
public record TransportConfig(
    int maxFrameBytes,
    int chunkBytes,
    int streamWindowBytes,
    int maxRequestsInFlight,
    long maxRequestBytesInFlight,
    int ioThreads,
    int requestThreads,
    Duration connectTimeout,
    Duration handshakeTimeout,
    Duration requestTimeout,
    Duration readTimeout,
    Duration idleTimeout,
    int writeBufferLowBytes,
    int writeBufferHighBytes,
    boolean zeroCopy,
    FaultInjection faults,
    TlsConfig tls) {

  /** Room for a frame's own header fields beyond its payload. */
  static final int FRAME_OVERHEAD = 64;

  /** Canonical constructor: validates; services build through {@link Builder}, which may gain fields. */
  @Internal
  public TransportConfig {
    Checks.inRange("transport.maxFrameBytes", maxFrameBytes, 64 * 1024, 256 * 1024 * 1024);
    Checks.inRange("transport.chunkBytes", chunkBytes, 1024, maxFrameBytes - FRAME_OVERHEAD);
    Checks.inRange("transport.streamWindowBytes", streamWindowBytes, chunkBytes, Integer.MAX_VALUE);
    Checks.inRange("transport.maxRequestsInFlight", maxRequestsInFlight, 1, 65536);
    Checks.inRange("transport.maxRequestBytesInFlight", maxRequestBytesInFlight, maxFrameBytes, 1L << 40);
    Checks.inRange("transport.ioThreads", ioThreads, 1, 256);
    Checks.inRange("transport.requestThreads", requestThreads, 1, 1024);
    Checks.positive("transport.connectTimeout", connectTimeout);
    Checks.positive("transport.handshakeTimeout", handshakeTimeout);
    Checks.positive("transport.requestTimeout", requestTimeout);
    Checks.positive("transport.readTimeout", readTimeout);
    Checks.positive("transport.idleTimeout", idleTimeout);
    if (idleTimeout.compareTo(Duration.ofMillis(30)) < 0) {
      throw new IllegalArgumentException("transport.idleTimeout must be at least 30ms, got " + idleTimeout);
    }
    Checks.inRange("transport.writeBufferHighBytes", writeBufferHighBytes, 4096, 1 << 30);
    Checks.inRange("transport.writeBufferLowBytes", writeBufferLowBytes, 1024, writeBufferHighBytes);
    Checks.notNull("transport.faults", faults);
  }

  /** True when connections use TLS. */
  public boolean tlsEnabled() {
    return tls != null;
  }

  /** Every setting at its production default. */
  public static TransportConfig defaults() {
    return builder().build();
  }

  /** A builder with every default. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this configuration's values, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .maxFrameBytes(maxFrameBytes)
        .chunkBytes(chunkBytes)
        .streamWindowBytes(streamWindowBytes)
        .maxRequestsInFlight(maxRequestsInFlight)
        .maxRequestBytesInFlight(maxRequestBytesInFlight)
        .ioThreads(ioThreads)
        .requestThreads(requestThreads)
        .connectTimeout(connectTimeout)
        .handshakeTimeout(handshakeTimeout)
        .requestTimeout(requestTimeout)
        .readTimeout(readTimeout)
        .idleTimeout(idleTimeout)
        .writeBufferLowBytes(writeBufferLowBytes)
        .writeBufferHighBytes(writeBufferHighBytes)
        .zeroCopy(zeroCopy)
        .faults(faults)
        .tls(tls);
  }

  /** Builds a validated {@link TransportConfig}; every setting has a production default. */
  public static final class Builder {
    private int maxFrameBytes = 16 * 1024 * 1024;
    private int chunkBytes = 256 * 1024;
    private int streamWindowBytes = 4 * 1024 * 1024;
    private int maxRequestsInFlight = 256;
    private long maxRequestBytesInFlight = 64L * 1024 * 1024;
    private int ioThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private int requestThreads = 32;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration handshakeTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration readTimeout = Duration.ofSeconds(30);
    private Duration idleTimeout = Duration.ofSeconds(60);
    private int writeBufferLowBytes = 256 * 1024;
    private int writeBufferHighBytes = 1024 * 1024;
    private boolean zeroCopy = true;
    private FaultInjection faults = FaultInjection.NONE;
    private TlsConfig tls;

    /** Sets {@link TransportConfig#maxFrameBytes()}; default {@code 16 * 1024 * 1024}. */
    public Builder maxFrameBytes(int v) {
      maxFrameBytes = v;
      return this;
    }

    /** Sets {@link TransportConfig#chunkBytes()}; default {@code 256 * 1024}. */
    public Builder chunkBytes(int v) {
      chunkBytes = v;
      return this;
    }

    /** Sets {@link TransportConfig#streamWindowBytes()}; default {@code 4 * 1024 * 1024}. */
    public Builder streamWindowBytes(int v) {
      streamWindowBytes = v;
      return this;
    }

    /** Sets {@link TransportConfig#maxRequestsInFlight()}; default {@code 256}. */
    public Builder maxRequestsInFlight(int v) {
      maxRequestsInFlight = v;
      return this;
    }

    /** Sets {@link TransportConfig#maxRequestBytesInFlight()}; default {@code 64L * 1024 * 1024}. */
    public Builder maxRequestBytesInFlight(long v) {
      maxRequestBytesInFlight = v;
      return this;
    }

    /**
     * Sets {@link TransportConfig#ioThreads()}; default {@code Math.max(2, Runtime.getRuntime().availableProcessors())}.
     */
    public Builder ioThreads(int v) {
      ioThreads = v;
      return this;
    }

    /** Sets {@link TransportConfig#requestThreads()}; default {@code 32}. */
    public Builder requestThreads(int v) {
      requestThreads = v;
      return this;
    }

    /** Sets {@link TransportConfig#connectTimeout()}; default {@code Duration.ofSeconds(5)}. */
    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    /** Sets {@link TransportConfig#handshakeTimeout()}; default {@code Duration.ofSeconds(5)}. */
    public Builder handshakeTimeout(Duration v) {
      handshakeTimeout = v;
      return this;
    }

    /** Sets {@link TransportConfig#requestTimeout()}; default {@code Duration.ofSeconds(30)}. */
    public Builder requestTimeout(Duration v) {
      requestTimeout = v;
      return this;
    }

    /** Sets {@link TransportConfig#readTimeout()}; default {@code Duration.ofSeconds(30)}. */
    public Builder readTimeout(Duration v) {
      readTimeout = v;
      return this;
    }

    /** Sets {@link TransportConfig#idleTimeout()}; default {@code Duration.ofSeconds(60)}. */
    public Builder idleTimeout(Duration v) {
      idleTimeout = v;
      return this;
    }

    /** Sets {@link TransportConfig#writeBufferLowBytes()}; default {@code 256 * 1024}. */
    public Builder writeBufferLowBytes(int v) {
      writeBufferLowBytes = v;
      return this;
    }

    /** Sets {@link TransportConfig#writeBufferHighBytes()}; default {@code 1024 * 1024}. */
    public Builder writeBufferHighBytes(int v) {
      writeBufferHighBytes = v;
      return this;
    }

    /** Sets {@link TransportConfig#zeroCopy()}; default {@code true}. */
    public Builder zeroCopy(boolean v) {
      zeroCopy = v;
      return this;
    }

    /** Sets {@link TransportConfig#faults()}; default {@code FaultInjection.NONE}. */
    public Builder faults(FaultInjection v) {
      faults = v;
      return this;
    }

    /** TLS for every connection of the transport; null (the default) for plaintext. */
    public Builder tls(TlsConfig v) {
      tls = v;
      return this;
    }

    /** The validated configuration; throws {@link IllegalArgumentException} naming the first bad field. */
    public TransportConfig build() {
      return new TransportConfig(
          maxFrameBytes,
          chunkBytes,
          streamWindowBytes,
          maxRequestsInFlight,
          maxRequestBytesInFlight,
          ioThreads,
          requestThreads,
          connectTimeout,
          handshakeTimeout,
          requestTimeout,
          readTimeout,
          idleTimeout,
          writeBufferLowBytes,
          writeBufferHighBytes,
          zeroCopy,
          faults,
          tls);
    }
  }
}
