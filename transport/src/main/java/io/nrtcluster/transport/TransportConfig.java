package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;
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
 * @param ioThreads Netty event-loop threads for all connections of this transport
 * @param requestThreads threads that run request handlers (never the event loop)
 * @param connectTimeout bound of a TCP connect plus handshake
 * @param handshakeTimeout a peer that has not completed the handshake by then is dropped
 * @param requestTimeout bound on waiting for the reply to one request
 * @param readTimeout a file stream that receives nothing for this long fails
 * @param zeroCopy stream files with {@code FileRegion} (sendfile); ignored when TLS is on
 * @param faults fault injection, {@link FaultInjection#NONE} in production
 */
public record TransportConfig(
    int maxFrameBytes,
    int chunkBytes,
    int streamWindowBytes,
    int maxRequestsInFlight,
    int ioThreads,
    int requestThreads,
    Duration connectTimeout,
    Duration handshakeTimeout,
    Duration requestTimeout,
    Duration readTimeout,
    boolean zeroCopy,
    FaultInjection faults) {

  /** Room for a frame's own header fields beyond its payload. */
  static final int FRAME_OVERHEAD = 64;

  public TransportConfig {
    Checks.inRange("transport.maxFrameBytes", maxFrameBytes, 64 * 1024, 256 * 1024 * 1024);
    Checks.inRange("transport.chunkBytes", chunkBytes, 1024, maxFrameBytes - FRAME_OVERHEAD);
    Checks.inRange("transport.streamWindowBytes", streamWindowBytes, chunkBytes, Integer.MAX_VALUE);
    Checks.inRange("transport.maxRequestsInFlight", maxRequestsInFlight, 1, 65536);
    Checks.inRange("transport.ioThreads", ioThreads, 1, 256);
    Checks.inRange("transport.requestThreads", requestThreads, 1, 1024);
    Checks.positive("transport.connectTimeout", connectTimeout);
    Checks.positive("transport.handshakeTimeout", handshakeTimeout);
    Checks.positive("transport.requestTimeout", requestTimeout);
    Checks.positive("transport.readTimeout", readTimeout);
    Checks.notNull("transport.faults", faults);
  }

  public static TransportConfig defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Builder toBuilder() {
    return new Builder()
        .maxFrameBytes(maxFrameBytes)
        .chunkBytes(chunkBytes)
        .streamWindowBytes(streamWindowBytes)
        .maxRequestsInFlight(maxRequestsInFlight)
        .ioThreads(ioThreads)
        .requestThreads(requestThreads)
        .connectTimeout(connectTimeout)
        .handshakeTimeout(handshakeTimeout)
        .requestTimeout(requestTimeout)
        .readTimeout(readTimeout)
        .zeroCopy(zeroCopy)
        .faults(faults);
  }

  /** Builds a validated {@link TransportConfig}; every setting has a production default. */
  public static final class Builder {
    private int maxFrameBytes = 16 * 1024 * 1024;
    private int chunkBytes = 256 * 1024;
    private int streamWindowBytes = 4 * 1024 * 1024;
    private int maxRequestsInFlight = 256;
    private int ioThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private int requestThreads = 32;
    private Duration connectTimeout = Duration.ofSeconds(5);
    private Duration handshakeTimeout = Duration.ofSeconds(5);
    private Duration requestTimeout = Duration.ofSeconds(30);
    private Duration readTimeout = Duration.ofSeconds(30);
    private boolean zeroCopy = true;
    private FaultInjection faults = FaultInjection.NONE;

    public Builder maxFrameBytes(int v) {
      maxFrameBytes = v;
      return this;
    }

    public Builder chunkBytes(int v) {
      chunkBytes = v;
      return this;
    }

    public Builder streamWindowBytes(int v) {
      streamWindowBytes = v;
      return this;
    }

    public Builder maxRequestsInFlight(int v) {
      maxRequestsInFlight = v;
      return this;
    }

    public Builder ioThreads(int v) {
      ioThreads = v;
      return this;
    }

    public Builder requestThreads(int v) {
      requestThreads = v;
      return this;
    }

    public Builder connectTimeout(Duration v) {
      connectTimeout = v;
      return this;
    }

    public Builder handshakeTimeout(Duration v) {
      handshakeTimeout = v;
      return this;
    }

    public Builder requestTimeout(Duration v) {
      requestTimeout = v;
      return this;
    }

    public Builder readTimeout(Duration v) {
      readTimeout = v;
      return this;
    }

    public Builder zeroCopy(boolean v) {
      zeroCopy = v;
      return this;
    }

    public Builder faults(FaultInjection v) {
      faults = v;
      return this;
    }

    public TransportConfig build() {
      return new TransportConfig(
          maxFrameBytes,
          chunkBytes,
          streamWindowBytes,
          maxRequestsInFlight,
          ioThreads,
          requestThreads,
          connectTimeout,
          handshakeTimeout,
          requestTimeout,
          readTimeout,
          zeroCopy,
          faults);
    }
  }
}
