package io.nrtcluster.stress.bench;

import io.nrtcluster.stress.NodeProcess;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One raw receiver process ({@link RawReceiverMain}) and the harness's side of its transfers. The
 * process is started with a benchmark node's JVM options and heap ({@link NodeProcess#java}), so
 * that its CPU time compares with a replica process's: the same JVM, the same heap limit, the same
 * collector, minus the library.
 *
 * <p>Guarantees: {@link #start} returns once the process listens and has run one unmeasured
 * transfer (so the measured ones do not pay for compiling the receive loop, as a long-running
 * replica does not), or fails naming its log; {@link #receive} sends every file whole ({@code
 * transferTo}, as the primary sends with {@code sendfile}) and returns only once the process wrote
 * and closed them all and answered; {@link #close} ends the process and deletes what it received.
 */
final class RawReceiver implements AutoCloseable {
  private static final long START_MS = 60_000;
  /**
   * The unmeasured transfer of {@link #start}: a thousand reads and writes or more, enough for the
   * JIT to compile the receive loop; deleted right after, so its dirty pages are dropped, never
   * written back.
   */
  static final long WARM_UP_BYTES = 256L << 20;
  /** A receiver that has all the bytes answers at once; this only bounds a hung one. */
  private static final int ANSWER_TIMEOUT_MS = 120_000;

  private final Process process;
  private final Path dir;
  private final int port;

  private RawReceiver(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /** What one transfer cost the receiver process, and how long it took. */
  record Received(long bytes, long cpuNanos, long windowNanos, long wallNanos, long userNanos) {
    /** Bytes per second, the harness's connect to the receiver's answer. */
    double bytesPerSec() {
      return bytes / (Math.max(1, wallNanos) / 1e9);
    }
  }

  /** Starts a receiver process in {@code dir} (its log: {@code receiver.log}) with a heap of {@code heapMb}. */
  static RawReceiver start(Path dir, int heapMb) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    Path portFile = dir.resolve(RawReceiverMain.PORT_FILE);
    Files.deleteIfExists(portFile);
    List<String> cmd = NodeProcess.java(dir, heapMb, List.of());
    cmd.add(RawReceiverMain.class.getName());
    cmd.addAll(List.of("--dir", dir.toString()));
    Path log = dir.resolve("receiver.log");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
        .start();
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_MS);
      while (!Files.exists(portFile)) {
        if (!p.isAlive()) {
          throw new IOException("the raw receiver exited with code " + p.exitValue() + " while starting; see " + log);
        }
        if (System.nanoTime() > deadline) {
          throw new IOException("the raw receiver did not listen within " + START_MS + " ms; see " + log);
        }
        p.waitFor(50, TimeUnit.MILLISECONDS);
      }
      RawReceiver r = new RawReceiver(p, dir, Integer.parseInt(Files.readString(portFile).strip()));
      r.warmUp();
      return r;
    } catch (IOException | InterruptedException | RuntimeException e) {
      p.destroyForcibly();
      throw e;
    }
  }

  /** Where the receiver writes its copy of {@code file}. */
  Path copyOf(Path file) {
    return dir.resolve(RawReceiverMain.FILES).resolve(file.getFileName());
  }

  /** Sends {@code files} whole to the receiver, which writes them into new files ({@link #copyOf}); kept until {@link #deleteCopies}. */
  Received receive(List<Path> files) throws IOException {
    List<String> names = new ArrayList<>();
    List<Long> sizes = new ArrayList<>();
    for (Path f : files) {
      names.add(f.getFileName().toString());
      sizes.add(Files.size(f));
    }
    long start = System.nanoTime();
    try (SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
      write(out, header(names, sizes));
      for (int i = 0; i < files.size(); i++) {
        try (FileChannel ch = FileChannel.open(files.get(i), StandardOpenOption.READ)) {
          long size = sizes.get(i);
          long pos = 0;
          while (pos < size) {
            pos += ch.transferTo(pos, size - pos, out);
          }
        }
      }
      return answer(out, start);
    }
  }

  /** Deletes every file the receiver wrote. */
  void deleteCopies() throws IOException {
    Path files = dir.resolve(RawReceiverMain.FILES);
    if (!Files.isDirectory(files)) {
      return;
    }
    try (DirectoryStream<Path> all = Files.newDirectoryStream(files)) {
      for (Path f : all) {
        Files.deleteIfExists(f);
      }
    }
  }

  /** One transfer of zeros, sent from memory and deleted after: the receive loop compiled before anything is measured. */
  private void warmUp() throws IOException {
    try (SocketChannel out = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
      long start = System.nanoTime();
      write(out, header(List.of("warm-up"), List.of(WARM_UP_BYTES)));
      ByteBuffer zeros = ByteBuffer.allocateDirect(RawReceiverMain.READ_BYTES);
      for (long left = WARM_UP_BYTES; left > 0; left -= zeros.capacity()) {
        write(out, zeros.clear().limit((int) Math.min(zeros.capacity(), left)));
      }
      answer(out, start);
    }
    deleteCopies();
  }

  private static ByteBuffer header(List<String> names, List<Long> sizes) {
    List<byte[]> encoded = names.stream().map(n -> n.getBytes(StandardCharsets.UTF_8)).toList();
    int bytes = Integer.BYTES;
    for (byte[] n : encoded) {
      bytes += Integer.BYTES + n.length + Long.BYTES;
    }
    ByteBuffer b = ByteBuffer.allocate(bytes).putInt(names.size());
    for (int i = 0; i < names.size(); i++) {
      b.putInt(encoded.get(i).length).put(encoded.get(i)).putLong(sizes.get(i));
    }
    return b.flip();
  }

  private static void write(SocketChannel out, ByteBuffer b) throws IOException {
    while (b.hasRemaining()) {
      out.write(b);
    }
  }

  private Received answer(SocketChannel out, long start) throws IOException {
    out.socket().setSoTimeout(ANSWER_TIMEOUT_MS);
    // The socket's stream, not the channel: only it honours the timeout.
    DataInputStream in = new DataInputStream(out.socket().getInputStream());
    try {
      long bytes = in.readLong();
      long cpu = in.readLong();
      long window = in.readLong();
      long user = in.readLong();
      return new Received(bytes, cpu, window, System.nanoTime() - start, user);
    } catch (IOException e) {
      throw new IOException("the raw receiver gave no answer (" + e + "); see " + dir.resolve("receiver.log"), e);
    }
  }

  /** Whether the process is still running. */
  boolean alive() {
    return process.isAlive();
  }

  /** Ends the process (closing its standard input, then by force if it lingers) and deletes what it received. */
  @Override
  public void close() throws IOException {
    try {
      process.getOutputStream().close();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    } finally {
      deleteCopies();
    }
  }
}
