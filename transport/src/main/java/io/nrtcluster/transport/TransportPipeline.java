package io.nrtcluster.transport;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;

/** The handler names and the shared part of both sides' pipelines. */
final class TransportPipeline {
  static final String THROTTLE = "throttle";
  static final String FRAMES = "frames";
  static final String DECODER = "decoder";
  static final String ENCODER = "encoder";
  static final String BIT_FLIPS = "bitFlips";
  static final String HANDSHAKE = "handshake";
  static final String CONNECTION = "connection";

  private TransportPipeline() {}

  /** Adds throttle (if configured), framing, codec and bit flips (if configured), in that order. */
  static void addCodec(ChannelPipeline p, Transport transport) {
    TransportConfig config = transport.config();
    FaultInjection faults = config.faults();
    if (faults.throttles() || faults.switchable()) {
      p.addLast(THROTTLE, transport.faultStats().newThrottle());
    }
    p.addLast(FRAMES, frameDecoder(config.maxFrameBytes()));
    p.addLast(ENCODER, transport.encoder());
    p.addLast(DECODER, transport.decoder());
    if (faults.flipsBits() || faults.switchable()) {
      p.addLast(BIT_FLIPS, new BitFlipHandler(transport.faultStats()));
    }
  }

  /**
   * Splits the inbound byte stream into frames and strips their 4-byte length prefix. Accepts a
   * length prefix of up to {@code maxFrameBytes}, the same bound {@link MessageEncoder} enforces:
   * Netty compares its limit with the frame length plus the prefix itself, hence the {@code + 4}.
   */
  static LengthFieldBasedFrameDecoder frameDecoder(int maxFrameBytes) {
    return new LengthFieldBasedFrameDecoder(maxFrameBytes + 4, 0, 4, 0, 4, true);
  }
}
