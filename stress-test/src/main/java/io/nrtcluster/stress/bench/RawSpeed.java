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
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The throughput baselines of the copy figures, measured on the same bytes in the same run: a plain
 * loopback TCP transfer (the sender's {@code transferTo}, the receiver reading and discarding), and a
 * plain disk write (the write calls of copying the files into new ones from an off-heap buffer, no
 * fsync: the replica's copy does not fsync either until it commits). Each can run as several
 * transfers at once, as many as there are replicas copying, since on one host those share the CPU,
 * the page cache and the disk. Figure 3's CPU baseline is a process of its own ({@link RawReceiver}).
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

  /**
   * Bytes per second of each of {@code streams} loopback transfers of {@code files} running at once
   * (each its own connection, the receivers discarding): what that many replicas' links could carry
   * on this host at the same time.
   */
  static double loopback(List<Path> files, int streams) throws IOException, InterruptedException {
    return concurrently(streams, () -> loopbackOnce(files));
  }

  /**
   * Bytes per second of each of {@code writers} copies of {@code files} into new files in {@code dir}
   * running at once: what that many replicas' disks could take on this host at the same time.
   */
  static double diskWrite(List<Path> files, Path dir, int writers) throws IOException, InterruptedException {
    List<Path> dirs = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      dirs.add(dir.resolve("writer-" + i));
    }
    AtomicInteger next = new AtomicInteger();
    return concurrently(writers, () -> diskWriteOnce(files, dirs.get(next.getAndIncrement())));
  }

  /** One transfer of several run at once by {@link #concurrently}. */
  interface Transfer {
    /** Runs one transfer; returns its bytes per second. */
    double run() throws IOException, InterruptedException;
  }

  /** Runs {@code n} transfers at once (released together); returns the slowest one's bytes per second. */
  static double concurrently(int n, Transfer transfer) throws IOException, InterruptedException {
    if (n == 1) {
      return transfer.run();
    }
    double[] speeds = new double[n];
    Exception[] failures = new Exception[n];
    CountDownLatch ready = new CountDownLatch(n);
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int slot = i;
      threads.add(Thread.ofPlatform().name("raw-transfer-" + i).start(() -> {
        try {
          ready.countDown();
          go.await();
          speeds[slot] = transfer.run();
        } catch (Exception e) {
          failures[slot] = e;
        }
      }));
    }
    ready.await();
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    double slowest = Double.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      if (failures[i] != null) {
        throw new IOException("raw transfer " + i + " of " + n + " failed: " + failures[i], failures[i]);
      }
      slowest = Math.min(slowest, speeds[i]);
    }
    return slowest;
  }

  /** Bytes per second through a loopback socket. */
  private static double loopbackOnce(List<Path> files) throws IOException, InterruptedException {
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

  /**
   * Bytes per second writing the same bytes to new files in {@code dir}: only the write calls are
   * timed (from an off-heap buffer, as the replica writes), not reading the source into it; the
   * copies are deleted after.
   */
  private static double diskWriteOnce(List<Path> files, Path dir) throws IOException {
    Written w = copy(files, dir);
    delete(files, dir);
    return w.bytes() / (Math.max(1, w.writeNanos()) / 1e9);
  }

  /**
   * Leaves the page cache as a merge leaves it for its pre-copy: the merge has just written the
   * merged segment, and those pages are still dirty when the replicas start writing theirs. On one
   * host the replicas' writes and that writeback meet the kernel's dirty-page limit together (at
   * about 2 GiB here, writers are then held to the disk's own speed), so a baseline written onto a
   * clean cache would compare them with a disk that never had to write anything back. Writes a copy
   * of {@code files} into {@code dir}, unsynced; {@link #delete} removes it.
   */
  static void dirtyLikeAMerge(List<Path> files, Path dir) throws IOException {
    copy(files, dir);
  }

  static void delete(List<Path> files, Path dir) throws IOException {
    for (Path f : files) {
      Files.deleteIfExists(dir.resolve(f.getFileName() + ".rawcopy"));
    }
  }

  /** What a copy wrote, and the nanoseconds it spent in write calls. */
  private record Written(long bytes, long writeNanos) {}

  /** Copies {@code files} into {@code dir}. */
  private static Written copy(List<Path> files, Path dir) throws IOException {
    Files.createDirectories(dir);
    ByteBuffer buffer = ByteBuffer.allocateDirect(1 << 20);
    long bytes = 0;
    long writeNanos = 0;
    for (Path f : files) {
      Path target = dir.resolve(f.getFileName() + ".rawcopy");
      try (FileChannel in = FileChannel.open(f, StandardOpenOption.READ);
          FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
              StandardOpenOption.TRUNCATE_EXISTING)) {
        while (in.read(buffer) >= 0) {
          buffer.flip();
          long start = System.nanoTime();
          while (buffer.hasRemaining()) {
            bytes += out.write(buffer);
          }
          writeNanos += System.nanoTime() - start;
          buffer.clear();
        }
      }
    }
    return new Written(bytes, writeNanos);
  }
}
