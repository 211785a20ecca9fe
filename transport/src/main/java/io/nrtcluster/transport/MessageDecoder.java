package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.ProtocolException;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes one frame (length prefix already stripped by the frame decoder) into a {@link Message}.
 * Anything malformed (unknown type, truncated field, impossible count, bytes left over) raises
 * {@link ProtocolException}, which closes only the connection that sent it.
 */
@ChannelHandler.Sharable
final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {

  MessageDecoder() {
    super(ByteBuf.class);
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) throws Exception {
    out.add(decode(frame));
  }

  /** Decodes a whole frame; the caller keeps ownership of {@code frame}. */
  static Message decode(ByteBuf in) throws ProtocolException {
    WireFormat.need(in, 9, "frame header");
    MessageType type = MessageType.fromCode(in.readByte());
    long id = in.readLong();
    Message m =
        switch (type) {
          case HELLO -> {
            WireFormat.need(in, 4, "protocol version");
            int version = in.readInt();
            String cluster = WireFormat.readString(in);
            String index = WireFormat.readString(in);
            WireFormat.need(in, 5, "node id and role");
            int nodeId = in.readInt();
            PeerRole role = PeerRole.fromWire(in.readByte());
            yield new Message.Hello(id, version, cluster, index, nodeId, role);
          }
          case HELLO_OK -> {
            WireFormat.need(in, 13, "hello reply");
            yield new Message.HelloOk(id, in.readInt(), in.readLong(), PeerRole.fromWire(in.readByte()));
          }
          case ERROR -> {
            WireFormat.need(in, 4, "error code");
            ErrorCode code = ErrorCode.fromWire(in.readInt());
            yield new Message.ErrorReply(id, code, WireFormat.readString(in));
          }
          case ACK -> new Message.Ack(id);
          case PING -> new Message.Ping(id);
          case GET_COPY_STATE -> {
            WireFormat.need(in, 4, "replica id");
            yield new Message.GetCopyState(id, in.readInt());
          }
          case COPY_STATE -> copyState(id, in);
          case NRT_POINT_COPY_STATE -> new Message.NrtPointCopyState(id, copyState(id, in));
          case RELEASE_COPY_STATE -> {
            WireFormat.need(in, 8, "copy state id");
            yield new Message.ReleaseCopyState(id, in.readLong());
          }
          case FETCH_FILE -> {
            WireFormat.need(in, 9, "fetch source");
            byte kind = in.readByte();
            Message.SourceKind sourceKind =
                switch (kind) {
                  case 1 -> Message.SourceKind.COPY_STATE;
                  case 2 -> Message.SourceKind.MERGE_PRECOPY;
                  case 3 -> Message.SourceKind.PEER;
                  default -> throw new ProtocolException("unknown fetch source kind " + kind);
                };
            long sourceId = in.readLong();
            String name = WireFormat.readString(in);
            WireFormat.need(in, 12, "fetch offset and window");
            long offset = in.readLong();
            int window = in.readInt();
            if (offset < 0 || window <= 0) {
              throw new ProtocolException("bad fetch offset " + offset + " or window " + window);
            }
            yield new Message.FetchFile(id, sourceKind, sourceId, name, offset, window);
          }
          case FILE_HEADER -> {
            WireFormat.need(in, 16, "file header");
            yield new Message.FileHeader(id, in.readLong(), in.readLong());
          }
          case FILE_CHUNK -> {
            WireFormat.need(in, 8, "chunk offset");
            long offset = in.readLong();
            ByteBuf data = in.readRetainedSlice(in.readableBytes());
            yield new FileChunk(id, offset, data);
          }
          case CREDIT -> {
            WireFormat.need(in, 4, "credit");
            int bytes = in.readInt();
            if (bytes <= 0) {
              throw new ProtocolException("non-positive credit " + bytes);
            }
            yield new Message.Credit(id, bytes);
          }
          case CANCEL -> new Message.Cancel(id);
          case NRT_POINT -> {
            WireFormat.need(in, 16, "nrt point");
            yield new Message.NrtPoint(id, in.readLong(), in.readLong());
          }
          case NEW_REPLICA -> {
            WireFormat.need(in, 12, "new replica");
            yield new Message.NewReplica(id, in.readInt(), in.readLong());
          }
          case INSTALLED -> {
            WireFormat.need(in, 24, "installed");
            yield new Message.Installed(id, in.readLong(), in.readLong(), in.readLong());
          }
          case COPY_SOURCE -> {
            WireFormat.need(in, 12, "copy source");
            long gen = in.readLong();
            int parent = in.readInt();
            if (parent < -1) {
              throw new ProtocolException("bad copy source parent " + parent);
            }
            yield new Message.CopySource(id, gen, parent, WireFormat.readString(in));
          }
          case PRE_COPY_MERGE -> {
            WireFormat.need(in, 16, "pre-copy header");
            long preCopyId = in.readLong();
            long primaryGen = in.readLong();
            yield new Message.PreCopyMerge(id, preCopyId, primaryGen, WireFormat.readFiles(in));
          }
          case PRE_COPY_PROGRESS -> {
            WireFormat.need(in, 8, "pre-copy progress");
            yield new Message.PreCopyProgress(id, in.readLong());
          }
          case PRE_COPY_DONE -> {
            WireFormat.need(in, 1, "pre-copy result");
            yield new Message.PreCopyDone(id, in.readBoolean());
          }
          case REPORT_CORRUPT_FILE -> {
            WireFormat.need(in, 8, "report generation");
            long primaryGen = in.readLong();
            String name = WireFormat.readString(in);
            WireFormat.need(in, 20, "reported file");
            long length = in.readLong();
            long checksum = in.readLong();
            int failures = in.readInt();
            if (length < 0 || failures <= 0) {
              throw new ProtocolException("bad reported length " + length + " or failure count " + failures);
            }
            yield new Message.ReportCorruptFile(id, primaryGen, name, length, checksum, failures);
          }
          case FILE_VERDICT -> {
            WireFormat.need(in, 1, "verdict");
            byte wire = in.readByte();
            Message.Verdict verdict =
                switch (wire) {
                  case 1 -> Message.Verdict.CORRUPT;
                  case 2 -> Message.Verdict.INTACT;
                  default -> throw new ProtocolException("unknown verdict " + wire);
                };
            yield new Message.FileVerdict(id, verdict, WireFormat.readString(in));
          }
        };
    if (in.isReadable()) {
      if (m instanceof FileChunk c) {
        c.release();
      }
      throw new ProtocolException(in.readableBytes() + " unexpected trailing bytes in " + type + " frame");
    }
    return m;
  }

  private static Message.CopyStateReply copyState(long id, ByteBuf in) throws ProtocolException {
    WireFormat.need(in, 32, "copy state header");
    long copyStateId = in.readLong();
    long primaryGen = in.readLong();
    long version = in.readLong();
    long gen = in.readLong();
    byte[] infos = WireFormat.readBytes(in);
    Map<String, FileMeta> files = WireFormat.readFiles(in);
    Set<String> merged = WireFormat.readNames(in);
    WireFormat.need(in, 1, "replay position flag");
    String position = in.readBoolean() ? WireFormat.readString(in) : null;
    return new Message.CopyStateReply(id, copyStateId, primaryGen, version, gen, infos, files, merged, position);
  }
}
