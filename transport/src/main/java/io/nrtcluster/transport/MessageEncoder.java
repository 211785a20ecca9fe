package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageEncoder;
import io.nrtcluster.common.ProtocolException;
import java.util.List;

/**
 * Encodes a {@link Message} into one length-prefixed frame: {@code [int length][byte type][long
 * requestId][fields]}. File data travels as a separate buffer (or {@code FileRegion}) after the
 * header, so it is never copied. Refuses to emit a frame longer than the configured maximum.
 */
@ChannelHandler.Sharable
final class MessageEncoder extends MessageToMessageEncoder<Message> {
  private final int maxFrameBytes;

  MessageEncoder(int maxFrameBytes) {
    super(Message.class);
    this.maxFrameBytes = maxFrameBytes;
  }

  @Override
  protected void encode(ChannelHandlerContext ctx, Message msg, List<Object> out) throws Exception {
    ByteBuf header = ctx.alloc().ioBuffer(64);
    boolean ok = false;
    try {
      header.writeInt(0);
      header.writeByte(MessageType.of(msg).code);
      header.writeLong(msg.requestId());
      long trailing = writeFields(header, msg);
      long frameLength = header.readableBytes() - 4L + trailing;
      if (frameLength > maxFrameBytes) {
        throw new ProtocolException(
            "refusing to send a " + frameLength + "-byte frame, above maxFrameBytes=" + maxFrameBytes);
      }
      header.setInt(0, (int) frameLength);
      out.add(header);
      ok = true;
      switch (msg) {
        case FileChunk c -> out.add(c.content().retain());
        case FileRegionChunk r -> out.add(r.region());
        default -> {}
      }
    } finally {
      if (!ok) {
        header.release();
        if (msg instanceof FileRegionChunk r) {
          r.region().release();
        }
      }
    }
  }

  /** Writes the fixed fields of {@code msg}; returns how many payload bytes follow separately. */
  private static long writeFields(ByteBuf b, Message msg) {
    switch (msg) {
      case Message.Hello m -> {
        b.writeInt(m.protocolVersion());
        WireFormat.writeString(b, m.cluster());
        WireFormat.writeString(b, m.index());
        b.writeInt(m.nodeId());
        b.writeByte(m.role().wire);
      }
      case Message.HelloOk m -> {
        b.writeInt(m.nodeId());
        b.writeLong(m.primaryGen());
        b.writeByte(m.role().wire);
      }
      case Message.ErrorReply m -> {
        b.writeInt(m.code().wire());
        String text = m.message() == null ? "" : m.message();
        WireFormat.writeString(b, text.length() > 4096 ? text.substring(0, 4096) : text);
      }
      case Message.Ack m -> {}
      case Message.Ping m -> {}
      case Message.GetCopyState m -> b.writeInt(m.replicaId());
      case Message.CopyStateReply m -> writeCopyState(b, m);
      case Message.NrtPointCopyState m -> writeCopyState(b, m.state());
      case Message.ReleaseCopyState m -> b.writeLong(m.copyStateId());
      case Message.FetchFile m -> {
        b.writeByte(m.sourceKind().wire);
        b.writeLong(m.sourceId());
        WireFormat.writeString(b, m.name());
        b.writeLong(m.offset());
        b.writeInt(m.windowBytes());
      }
      case Message.FileHeader m -> {
        b.writeLong(m.length());
        b.writeLong(m.offset());
      }
      case FileChunk m -> {
        b.writeLong(m.offset());
        return m.content().readableBytes();
      }
      case FileRegionChunk m -> {
        b.writeLong(m.offset());
        return m.region().count();
      }
      case Message.Credit m -> b.writeInt(m.bytes());
      case Message.Cancel m -> {}
      case Message.NrtPoint m -> {
        b.writeLong(m.primaryGen());
        b.writeLong(m.version());
      }
      case Message.NewReplica m -> {
        b.writeInt(m.replicaId());
        b.writeLong(m.searchingVersion());
      }
      case Message.Installed m -> {
        b.writeLong(m.primaryGen());
        b.writeLong(m.version());
        b.writeLong(m.incarnation());
      }
      case Message.CopySource m -> {
        b.writeLong(m.primaryGen());
        b.writeInt(m.parentId());
        WireFormat.writeString(b, m.parentAddress());
      }
      case Message.PreCopyMerge m -> {
        b.writeLong(m.preCopyId());
        b.writeLong(m.primaryGen());
        WireFormat.writeFiles(b, m.files());
      }
      case Message.PreCopyProgress m -> b.writeLong(m.bytesCopied());
      case Message.PreCopyDone m -> b.writeBoolean(m.success());
      case Message.ReportCorruptFile m -> {
        b.writeLong(m.primaryGen());
        WireFormat.writeString(b, m.name());
        b.writeLong(m.length());
        b.writeLong(m.checksum());
        b.writeInt(m.failures());
      }
      case Message.FileVerdict m -> {
        b.writeByte(m.verdict().wire);
        WireFormat.writeString(b, WireFormat.capped(m.detail()));
      }
    }
    return 0;
  }

  private static void writeCopyState(ByteBuf b, Message.CopyStateReply m) {
    b.writeLong(m.copyStateId());
    b.writeLong(m.primaryGen());
    b.writeLong(m.version());
    b.writeLong(m.gen());
    WireFormat.writeBytes(b, m.infosBytes());
    WireFormat.writeFiles(b, m.files());
    WireFormat.writeNames(b, m.completedMergeFiles());
    b.writeBoolean(m.replayPosition() != null);
    if (m.replayPosition() != null) {
      WireFormat.writeString(b, m.replayPosition());
    }
  }
}
