package io.nrtcluster.transport;

import io.netty.buffer.ByteBufUtil;
import java.util.Map;
import java.util.Set;

/**
 * The length of the frame {@link MessageEncoder} writes for a message (without the 4-byte length
 * prefix), computed without encoding it: what a received request costs against a connection's
 * {@link TransportConfig#maxRequestBytesInFlight()}.
 */
final class FrameSize {
  /** Type byte and request id. */
  static final int HEADER = 1 + 8;

  private FrameSize() {}

  static long of(Message m) {
    return HEADER + switch (m) {
      case Message.Hello h -> 4 + string(h.cluster()) + string(h.index()) + 4 + 1;
      case Message.HelloOk h -> 4 + 8 + 1;
      case Message.ErrorReply e -> {
        String text = e.message() == null ? "" : e.message();
        yield 4 + string(text.length() > 4096 ? text.substring(0, 4096) : text);
      }
      case Message.Ack a -> 0;
      case Message.Ping p -> 0;
      case Message.GetCopyState g -> 4;
      case Message.CopyStateReply c -> 4 * 8 + 4L + c.infosBytes().length + files(c.files()) + names(c.completedMergeFiles())
          + 1 + (c.replayPosition() == null ? 0 : string(c.replayPosition()));
      case Message.ReleaseCopyState r -> 8;
      case Message.FetchFile f -> 1 + 8 + string(f.name()) + 8 + 4;
      case Message.FileHeader h -> 8 + 8;
      case FileChunk c -> 8L + c.content().readableBytes();
      case FileRegionChunk r -> 8 + r.region().count();
      case Message.Credit c -> 4;
      case Message.Cancel c -> 0;
      case Message.NrtPoint p -> 8 + 8;
      case Message.NrtPointCopyState p -> of(p.state());
      case Message.NewReplica n -> 4 + 8;
      case Message.Installed i -> 8 + 8 + 8;
      case Message.CopySource c -> 8 + 4 + string(c.parentAddress());
      case Message.PreCopyMerge p -> 8 + 8 + files(p.files());
      case Message.PreCopyProgress p -> 8;
      case Message.PreCopyDone d -> 1;
      case Message.ReportCorruptFile r -> 8 + string(r.name()) + 8 + 8 + 4;
      case Message.FileVerdict v -> 1 + string(WireFormat.capped(v.detail()));
    };
  }

  private static long string(String s) {
    return 2L + ByteBufUtil.utf8Bytes(s);
  }

  private static long files(Map<String, FileMeta> files) {
    long n = 4;
    for (Map.Entry<String, FileMeta> e : files.entrySet()) {
      FileMeta m = e.getValue();
      n += string(e.getKey()) + 2 + m.header().length + 2 + m.footer().length + 8 + 8;
    }
    return n;
  }

  private static long names(Set<String> names) {
    long n = 4;
    for (String s : names) {
      n += string(s);
    }
    return n;
  }
}
