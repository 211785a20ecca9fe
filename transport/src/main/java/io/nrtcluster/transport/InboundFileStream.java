package io.nrtcluster.transport;

import io.netty.buffer.ByteBuf;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Receiving end of one file stream ({@link Connection#fetchFile}). One consumer thread reads it as
 * a blocking byte stream; the event loop fills it. Memory is bounded by the window: the sender may
 * only have {@code window} unconsumed bytes outstanding and gets more credit as bytes are read; a
 * sender that overruns the window, skips or repeats bytes, or sends past the file's end is a
 * protocol violation and fails the stream.
 */
@Internal
public final class InboundFileStream implements AutoCloseable {
  private static final Object END = new Object();

  private final Connection connection;
  private final long requestId;
  private final int window;
  private final long readTimeoutNanos;
  private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
  /** Credit granted to the sender beyond the initial window; read by the event loop. */
  private final AtomicLong granted = new AtomicLong();

  // Event-loop side state.
  private long expectedOffset;
  private long length = -1;

  // Consumer side state.
  private final long startOffset;
  private volatile long fileLength = -1;
  private FileChunk currentChunk;
  private ByteBuf current;
  private long position;
  private volatile long flipsRead;
  /** The sender's header arrived: it opened the file and is sending into the window. */
  private volatile boolean answered;
  private int uncredited;
  private boolean finished;
  private volatile boolean closed;

  InboundFileStream(Connection connection, long requestId, long startOffset, int window, Duration readTimeout) {
    this.connection = connection;
    this.requestId = requestId;
    this.startOffset = startOffset;
    this.expectedOffset = startOffset;
    this.position = startOffset;
    this.window = window;
    this.readTimeoutNanos = readTimeout.toNanos();
  }

  /**
   * Bytes flipped by the transport's bit-flip fault point among those this stream handed out so far
   * (always 0 without that fault). The reader owns their fate: it reports it through {@link
   * FaultStats#flipsResolved} once it keeps or throws away the file the bytes went into; flipped
   * bytes never handed out are counted as discarded by the stream itself.
   */
  public long flipsRead() {
    return flipsRead;
  }

  /**
   * Whether the sender answered the request: its header arrived, so it has the file open and its
   * bytes are on the way (or here, unread). Does not block.
   */
  public boolean answered() {
    return answered;
  }

  /** Offset in the file of the next byte {@link #read} returns. */
  public long position() {
    return position;
  }

  /**
   * The file's total length as the sender reports it; blocks until the stream's header arrived.
   */
  public long length() throws IOException {
    while (fileLength < 0) {
      Object head = poll();
      if (head instanceof Long len) {
        fileLength = len;
      } else {
        throw new ProtocolException("file stream " + requestId + " did not start with a header");
      }
    }
    return fileLength;
  }

  /**
   * Reads up to {@code len} bytes, blocking until at least one is available. Returns -1 at the end of
   * the file. Fails with {@link ConnectionException} when nothing arrives within the read timeout.
   */
  public int read(byte[] dst, int off, int len) throws IOException {
    length();
    if (len == 0) {
      return 0;
    }
    if (!nextReadable()) {
      return -1;
    }
    int n = Math.min(len, current.readableBytes());
    handingOut(n);
    current.readBytes(dst, off, n);
    consumed(n);
    return n;
  }

  /** Receives bytes read in place: the view is of the transport's buffer and valid only during the call. */
  @FunctionalInterface
  public interface InPlaceReader {
    /** Takes (or refuses, by throwing) all of {@code bytes}' remaining bytes; must not keep the view. */
    void read(ByteBuffer bytes) throws IOException;
  }

  /**
   * Like {@link #read(byte[], int, int)}, but hands up to {@code max} bytes to {@code reader} as a
   * view of the received buffer instead of copying them (off-heap as they came from the socket). The
   * bytes count as read only when {@code reader} returns normally. Returns -1 at the end of the file.
   */
  public int readInPlace(int max, InPlaceReader reader) throws IOException {
    length();
    if (max == 0) {
      return 0;
    }
    if (!nextReadable()) {
      return -1;
    }
    int n = Math.min(max, current.readableBytes());
    // Handed out even if the reader refuses them: it has seen (and checksummed) the bytes.
    handingOut(n);
    reader.read(current.nioBuffer(current.readerIndex(), n));
    current.skipBytes(n);
    consumed(n);
    return n;
  }

  /** Makes {@code current} a chunk with bytes left, waiting for one; false at the end of the file. */
  private boolean nextReadable() throws IOException {
    while (current == null || !current.isReadable()) {
      releaseCurrent();
      if (finished || position == fileLength) {
        finished = true;
        return false;
      }
      Object next = poll();
      if (next instanceof FileChunk chunk) {
        currentChunk = chunk;
        current = chunk.content();
      } else if (next == END) {
        finished = true;
        return false;
      } else {
        throw new ProtocolException("unexpected item in file stream " + requestId);
      }
    }
    return true;
  }

  /** The next {@code n} bytes of {@code current} go to the reader: a flip among them is now its to account for. */
  private void handingOut(int n) {
    if (currentChunk.takeFlip(position, n)) {
      flipsRead++;
    }
  }

  /** {@code n} bytes were taken: the sender gets credit for them once half the window is used. */
  private void consumed(int n) {
    position += n;
    uncredited += n;
    if (uncredited >= window / 2) {
      granted.addAndGet(uncredited);
      connection.send(new Message.Credit(requestId, uncredited));
      uncredited = 0;
    }
  }

  /** Reads exactly {@code len} bytes or fails. */
  public void readFully(byte[] dst, int off, int len) throws IOException {
    while (len > 0) {
      int n = read(dst, off, len);
      if (n < 0) {
        throw new ProtocolException("file stream " + requestId + " ended early at " + position);
      }
      off += n;
      len -= n;
    }
  }

  private Object poll() throws IOException {
    if (closed) {
      throw new ConnectionException("file stream " + requestId + " is closed");
    }
    Object next;
    try {
      next = queue.poll(readTimeoutNanos, TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted reading file stream " + requestId);
    }
    if (next == null) {
      throw new ConnectionException(
          "no file data from " + connection.remoteAddress() + " for " + Duration.ofNanos(readTimeoutNanos));
    }
    if (next instanceof Throwable t) {
      queue.add(t);
      if (t instanceof NrtClusterException e) {
        throw e;
      }
      throw new ConnectionException("file stream " + requestId + " failed", t);
    }
    return next;
  }

  /** Stops the stream: cancels it on the peer if unfinished, frees buffered data. Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    releaseCurrent();
    if (connection.removePending(requestId) != null && connection.isOpen()) {
      connection.send(new Message.Cancel(requestId));
    }
    // The event loop may still enqueue a chunk it was processing; drain on the loop to be sure.
    drain();
    connection.channel().eventLoop().execute(this::drain);
  }

  private void drain() {
    Object o;
    while ((o = queue.poll()) != null) {
      if (o instanceof FileChunk c) {
        c.release();
      }
    }
  }

  private void releaseCurrent() {
    if (currentChunk != null) {
      currentChunk.release();
      currentChunk = null;
      current = null;
    }
  }

  ReplySink sink() {
    return new ReplySink() {
      @Override
      public boolean accept(Message reply) {
        return onReply(reply);
      }

      @Override
      public void fail(Throwable cause) {
        queue.add(cause);
      }
    };
  }

  /** Event loop: one reply frame for this stream. Returns true when the stream is complete. */
  private boolean onReply(Message reply) {
    switch (reply) {
      case Message.FileHeader h -> {
        if (length >= 0 || h.offset() != startOffset || h.length() < startOffset) {
          return violation("bad file header " + h);
        }
        length = h.length();
        answered = true;
        queue.add(h.length());
        if (length == startOffset) {
          queue.add(END);
          return true;
        }
        return false;
      }
      case FileChunk c -> {
        int bytes = c.content().readableBytes();
        if (length < 0 || c.offset() != expectedOffset || expectedOffset + bytes > length) {
          c.release();
          return violation("chunk at " + c.offset() + " of " + bytes + " bytes, expected offset " + expectedOffset + " length " + length);
        }
        if (expectedOffset + bytes - startOffset > window + granted.get()) {
          c.release();
          return violation("sender overran the flow-control window");
        }
        expectedOffset += bytes;
        if (closed) {
          c.release();
        } else {
          queue.add(c);
        }
        if (expectedOffset == length) {
          queue.add(END);
          return true;
        }
        return false;
      }
      case Message.ErrorReply e -> {
        queue.add(NrtClusterException.fromRemote(e.code(), e.message()));
        return true;
      }
      default -> {
        return violation("unexpected " + reply.getClass().getSimpleName() + " in file stream");
      }
    }
  }

  private boolean violation(String what) {
    queue.add(new ProtocolException("file stream " + requestId + " from " + connection.remoteAddress() + ": " + what));
    connection.send(new Message.Cancel(requestId));
    return true;
  }
}
