package io.nrtcluster.stress.bench;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The raw receiver of figure 3, run as its own JVM ({@link RawReceiver} starts it like a node
 * process): what a replica's copy does to a merged segment, minus the library. It takes loopback
 * connections one at a time; on each it reads the names and lengths of the files to come, then their
 * bytes, and writes every file into a new file in {@code <dir>/files} under the same name (replacing
 * one left by an earlier transfer).
 *
 * <p>Like the replica's copy ({@code TempFileCopy} over the transport): each socket read goes into
 * an off-heap buffer of {@link #READ_BYTES} (the transport's largest socket read, {@code
 * TransportPipeline.MAX_READ_BYTES}), and what one read brought is written with one write call; the
 * files are created new and closed without fsync, because the replica's copy does not fsync either
 * (its files are fsynced only when the replica commits, {@code ReplicatingReplicaNode.commit}, after
 * the copy). Unlike it: no checksums, no frames, no flow control, no hand-off between an event loop
 * and a copying thread, and the files are written under their own names instead of renamed from
 * temp files.
 *
 * <p>Guarantees: after the last byte of a transfer is written and its files are closed it answers
 * with the bytes written, this process's CPU time over the transfer (from the accepted connection
 * to then; every thread, user and system), the window's nanoseconds and the CPU time's user-mode
 * part (-1 where the system does not say); a transfer that fails closes
 * the connection without an answer and leaves the reason in its log. It exits when its standard
 * input ends (the harness closed it, or died).
 *
 * <p>The CPU time is read from the counter a replica's is read from ({@link CpuClock}), at the
 * window's two ends; a replica's is sampled every 50 ms and interpolated at the ends of the
 * pre-copy's window ({@link CpuSampler}): the same quantity, read at the ends instead of between
 * samples, since this process knows its window and a replica does not.
 */
@Command(name = "raw-receiver", mixinStandardHelpOptions = true,
    description = "Receives files over loopback TCP and writes them, no checks: figure 3's CPU baseline.")
public final class RawReceiverMain implements Callable<Integer> {
  /** Bytes per socket read, and so at most per file write: the replica's transport reads up to 256 KiB at once. */
  static final int READ_BYTES = 256 * 1024;
  /** Where the receiver writes its port once it listens. */
  static final String PORT_FILE = "receiver.port";
  /** Where the received files go, under the receiver's directory. */
  static final String FILES = "files";

  private static final Logger LOG = LoggerFactory.getLogger(RawReceiverMain.class);

  @Option(names = "--dir", required = true, description = "Directory for the port file and the received files.")
  Path dir;

  public static void main(String[] args) {
    System.exit(new CommandLine(new RawReceiverMain()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    Path files = dir.resolve(FILES);
    Files.createDirectories(files);
    Thread.ofPlatform().daemon().name("raw-receiver-stdin").start(RawReceiverMain::exitWhenStdinEnds);
    ByteBuffer buffer = ByteBuffer.allocateDirect(READ_BYTES);
    try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
      Path tmp = dir.resolve(PORT_FILE + ".tmp");
      Files.writeString(tmp, Integer.toString(port));
      // Moved into place whole, so the harness never reads a half-written port.
      Files.move(tmp, dir.resolve(PORT_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      while (true) {
        try (SocketChannel in = server.accept()) {
          long cpuFrom = CpuClock.cpuNanos();
          long userFrom = CpuClock.userNanos();
          long from = System.nanoTime();
          try {
            long bytes = receive(in, files, buffer);
            long cpu = CpuClock.cpuNanos() - cpuFrom;
            long userTo = CpuClock.userNanos();
            long user = userFrom < 0 || userTo < 0 ? -1 : userTo - userFrom;
            long nanos = System.nanoTime() - from;
            ByteBuffer answer = ByteBuffer.allocate(4 * Long.BYTES).putLong(bytes).putLong(cpu).putLong(nanos)
                .putLong(user).flip();
            while (answer.hasRemaining()) {
              in.write(answer);
            }
          } catch (IOException | RuntimeException e) {
            // The harness sees the connection close without an answer and points to this log.
            LOG.error("transfer failed: {}", e.toString(), e);
          }
        }
      }
    }
  }

  /**
   * Reads one transfer from {@code in} into {@code files}: first every file's name and length, then
   * their bytes in that order. Returns the bytes written.
   */
  private static long receive(SocketChannel in, Path files, ByteBuffer buffer) throws IOException {
    int count = readHeader(in, Integer.BYTES).getInt();
    List<Path> targets = new ArrayList<>();
    List<Long> lengths = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int nameBytes = readHeader(in, Integer.BYTES).getInt();
      if (nameBytes <= 0 || nameBytes > 1024) {
        throw new IOException("bad file name length " + nameBytes);
      }
      String name = StandardCharsets.UTF_8.decode(readHeader(in, nameBytes)).toString();
      Path target = files.resolve(name);
      if (!files.equals(target.getParent())) {
        throw new IOException("file name " + name + " is not a plain name");
      }
      targets.add(target);
      lengths.add(readHeader(in, Long.BYTES).getLong());
    }
    long written = 0;
    for (int i = 0; i < count; i++) {
      Path target = targets.get(i);
      long left = lengths.get(i);
      Files.deleteIfExists(target);
      try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        while (left > 0) {
          buffer.clear().limit((int) Math.min(buffer.capacity(), left));
          int n = in.read(buffer);
          if (n < 0) {
            throw new EOFException("the sender closed with " + left + " bytes of " + target.getFileName() + " to come");
          }
          buffer.flip();
          while (buffer.hasRemaining()) {
            written += out.write(buffer);
          }
          left -= n;
        }
      }
    }
    return written;
  }

  /** Exactly {@code bytes} bytes of header from {@code in}, ready to read. */
  private static ByteBuffer readHeader(SocketChannel in, int bytes) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(bytes);
    while (b.hasRemaining()) {
      if (in.read(b) < 0) {
        throw new EOFException("the sender closed within a header");
      }
    }
    return b.flip();
  }

  private static void exitWhenStdinEnds() {
    try (InputStream stdin = System.in) {
      while (stdin.read() >= 0) {
        // Nothing is sent on standard input: only its end matters.
      }
    } catch (IOException e) {
      // A broken pipe ends it as well.
    }
    System.exit(0);
  }
}
