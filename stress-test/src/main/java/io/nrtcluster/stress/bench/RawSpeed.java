package io.nrtcluster.stress.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The baselines of the copy-throughput figure, measured on the same bytes in the same run: a plain
 * loopback TCP transfer (the sender's {@code transferTo}, the receiver reading and discarding), and a
 * plain disk write (read into a buffer, written to a new file, no fsync: the replica's copy does not
 * fsync either until it commits).
 */
final class RawSpeed {
  private RawSpeed() {}

  /**
   * Writes every dirty page of the machine to disk ({@code sync}) so that the next phase does not
   * pay for the writeback of the one before: without it the same copy measured 770-1,560 MiB/s from
   * run to run. Where there is no {@code sync} command this does nothing.
   */
  static void flushPageCache() throws InterruptedException {
    try {
      Process sync = new ProcessBuilder("sync").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!sync.waitFor(120, TimeUnit.SECONDS)) {
        sync.destroyForcibly();
      }
    } catch (IOException e) {
      // No sync command: the phases then share the page cache, as before.
    }
  }

  /** Bytes per second through a loopback socket. */
  static double loopback(List<Path> files) throws IOException, InterruptedException {
    try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
      long[] received = new long[1];
      Thread receiver = Thread.ofPlatform().name("raw-receiver").start(() -> {
        try (SocketChannel in = server.accept()) {
          ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
          int n;
          while ((n = in.read(buffer)) >= 0) {
            received[0] += n;
            buffer.clear();
          }
        } catch (IOException e) {
          received[0] = -1;
        }
      });
      long start = System.nanoTime();
      long sent = 0;
      try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
        for (Path f : files) {
          try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ)) {
            long size = ch.size();
            long pos = 0;
            while (pos < size) {
              pos += ch.transferTo(pos, size - pos, out);
            }
            sent += size;
          }
        }
      }
      receiver.join();
      long nanos = System.nanoTime() - start;
      if (received[0] != sent) {
        throw new IOException("loopback baseline received " + received[0] + " of " + sent + " bytes");
      }
      return sent / (nanos / 1e9);
    }
  }

  /** Bytes per second writing the same bytes to new files in {@code dir}. */
  static double diskWrite(List<Path> files, Path dir) throws IOException {
    Files.createDirectories(dir);
    ByteBuffer buffer = ByteBuffer.allocate(1 << 20);
    long bytes = 0;
    long start = System.nanoTime();
    for (Path f : files) {
      Path target = dir.resolve(f.getFileName() + ".rawcopy");
      try (FileChannel in = FileChannel.open(f, StandardOpenOption.READ);
          FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        while (in.read(buffer) >= 0) {
          buffer.flip();
          while (buffer.hasRemaining()) {
            bytes += out.write(buffer);
          }
          buffer.clear();
        }
      }
    }
    long nanos = System.nanoTime() - start;
    for (Path f : files) {
      Files.deleteIfExists(dir.resolve(f.getFileName() + ".rawcopy"));
    }
    return bytes / (nanos / 1e9);
  }
}
