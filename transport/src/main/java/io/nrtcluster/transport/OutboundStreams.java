package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.DefaultFileRegion;
import io.nrtcluster.common.ErrorCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashMap;
import java.util.Map;

/**
 * Sending side of the file streams of one connection. Confined to the connection's event loop. A
 * stream sends while it has credit and the channel is writable, so neither a slow receiver nor a
 * slow socket makes the sender buffer more than one window per stream.
 */
final class OutboundStreams {
  private final Connection connection;
  private final TransportConfig config;
  private final Map<Long, Stream> streams = new HashMap<>();

  OutboundStreams(Connection connection, TransportConfig config) {
    this.connection = connection;
    this.config = config;
  }

  void start(Message.FetchFile request, Path file, boolean zeroCopy) {
    Channel ch = connection.channel();
    if (!ch.isActive()) {
      return;
    }
    if (streams.size() >= config.maxRequestsInFlight()) {
      connection.send(new Message.ErrorReply(request.requestId(), ErrorCode.TOO_MANY_REQUESTS,
          "more than " + config.maxRequestsInFlight() + " file streams on one connection"));
      return;
    }
    Stream s;
    try {
      s = new Stream(request, file, zeroCopy);
    } catch (IOException e) {
      connection.send(new Message.ErrorReply(request.requestId(), ErrorCode.FILE_NOT_SERVABLE,
          "cannot open " + request.name() + ": " + e));
      return;
    }
    if (request.offset() > s.end) {
      s.close();
      connection.send(new Message.ErrorReply(request.requestId(), ErrorCode.FILE_NOT_SERVABLE,
          "offset " + request.offset() + " is past the end of " + request.name() + " (" + s.end + " bytes)"));
      return;
    }
    if (streams.putIfAbsent(request.requestId(), s) != null) {
      s.close();
      connection.send(new Message.ErrorReply(request.requestId(), ErrorCode.PROTOCOL, "duplicate request id"));
      return;
    }
    connection.send(new Message.FileHeader(request.requestId(), s.end, request.offset()));
    pump(s);
  }

  void credit(long requestId, int bytes) {
    Stream s = streams.get(requestId);
    if (s != null) {
      s.credit += bytes;
      pump(s);
    }
  }

  void cancel(long requestId) {
    Stream s = streams.remove(requestId);
    if (s != null) {
      s.close();
    }
  }

  void pumpAll() {
    for (Stream s : streams.values().toArray(new Stream[0])) {
      pump(s);
    }
  }

  void closeAll() {
    for (Stream s : streams.values()) {
      s.close();
    }
    streams.clear();
  }

  int size() {
    return streams.size();
  }

  private void pump(Stream s) {
    Channel ch = connection.channel();
    boolean wrote = false;
    try {
      while (s.position < s.end && s.credit > 0 && ch.isWritable()) {
        int n = (int) Math.min(Math.min(config.chunkBytes(), s.credit), s.end - s.position);
        Message chunk;
        if (s.zeroCopy) {
          chunk = new FileRegionChunk(s.requestId, s.position, new DefaultFileRegion(s.file.toFile(), s.position, n));
        } else {
          ByteBuf buf = ch.alloc().ioBuffer(n);
          try {
            int read = 0;
            while (read < n) {
              int r = buf.writeBytes(s.channel(), s.position + read, n - read);
              if (r < 0) {
                throw new IOException("file " + s.file.getFileName() + " shrank while streaming");
              }
              read += r;
            }
          } catch (IOException e) {
            buf.release();
            throw e;
          }
          chunk = new FileChunk(s.requestId, s.position, buf);
        }
        s.position += n;
        s.credit -= n;
        ch.write(chunk).addListener(Transport.CLOSE_ON_WRITE_FAILURE);
        wrote = true;
      }
    } catch (IOException e) {
      streams.remove(s.requestId);
      s.close();
      connection.send(new Message.ErrorReply(s.requestId, ErrorCode.INTERNAL, "reading " + s.file.getFileName() + " failed: " + e));
    }
    if (wrote) {
      ch.flush();
    }
    if (s.position == s.end && streams.remove(s.requestId, s)) {
      s.close();
    }
  }

  private static final class Stream {
    final long requestId;
    final Path file;
    final long end;
    final boolean zeroCopy;
    long position;
    long credit;
    private FileChannel channel;

    Stream(Message.FetchFile request, Path file, boolean zeroCopy) throws IOException {
      this.requestId = request.requestId();
      this.file = file;
      this.zeroCopy = zeroCopy;
      this.position = request.offset();
      this.credit = request.windowBytes();
      // Opening (rather than stat-ing) proves the file is readable and pins its length now.
      this.channel = FileChannel.open(file, StandardOpenOption.READ);
      this.end = channel.size();
      if (zeroCopy) {
        // Regions reopen the file by path; no need to keep a descriptor per stream.
        channel.close();
        channel = null;
      }
    }

    FileChannel channel() {
      return channel;
    }

    void close() {
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException ignored) {
          // Read-only channel: nothing to lose.
        }
        channel = null;
      }
    }
  }
}
