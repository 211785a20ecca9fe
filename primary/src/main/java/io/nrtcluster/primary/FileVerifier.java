package io.nrtcluster.primary;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.PeerFileNames;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.PrimaryNode;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Checks a file that a replica reports as failing its checksum in transit, by reading the primary's
 * own copy in full ({@link CodecUtil#checksumEntireFile}).
 *
 * <p>Guarantees: only a file of the primary's current point-in-time whose length and checksum are
 * the ones reported is read (so a report can never make it read a lock, a temp file or a file still
 * being written, and a bad name never reaches the disk); reading happens on this verifier's own
 * serial executor ({@link ExecutorSource.Pool#WORK}), one file at a time, never on a network thread; reports of a file verified less than
 * {@link #REUSE} ago get that answer again without a reread, and reports of a file being verified
 * wait for that verification; a file found corrupt is handed to the corruption sink once and stays
 * corrupt for every later report. At most {@link #MAX_PENDING} distinct files wait at once; more are
 * refused with {@link ErrorCode#TOO_MANY_REQUESTS}.
 */
final class FileVerifier {
  /** How long an "intact" answer is reused for repeated reports of the same file. */
  static final Duration REUSE = Duration.ofSeconds(10);
  /** Distinct files waiting for verification at once. */
  static final int MAX_PENDING = 16;
  private static final int MAX_REMEMBERED = 256;

  /** What was found, and in how long. */
  record Result(Message.Verdict verdict, String detail, long atNanos) {}

  private record Key(String name, long length, long checksum) {}

  private final PrimaryNode node;
  private final Directory dir;
  private final NodeLog log;
  private final Consumer<CorruptIndexException> onCorrupt;
  private final ExecutorService thread;
  private final Map<Key, CompletableFuture<Result>> pending = new ConcurrentHashMap<>();
  private final Map<Key, Result> known = new ConcurrentHashMap<>();
  private volatile boolean corruptionRaised;

  FileVerifier(PrimaryNode node, Directory dir, NodeLog log, Consumer<CorruptIndexException> onCorrupt) {
    this(node, dir, log, onCorrupt, ExecutorSource.ownThreads());
  }

  FileVerifier(PrimaryNode node, Directory dir, NodeLog log, Consumer<CorruptIndexException> onCorrupt,
      ExecutorSource executors) {
    this.node = node;
    this.dir = dir;
    this.log = log;
    this.onCorrupt = onCorrupt;
    this.thread = executors.serial(ExecutorSource.Pool.WORK, "nrt-verify-" + log.name());
  }

  /**
   * The verdict on file {@code name} as a replica saw it advertised ({@code length}, {@code
   * checksum}). Fails with {@link FileNotServableException} for an unsafe name, a file not in the
   * current point-in-time or one whose metadata differs from the report.
   */
  CompletableFuture<Result> verify(String name, long length, long checksum) throws NrtClusterException {
    Key key = new Key(PeerFileNames.requireSafe(name), length, checksum);
    Result last = known.get(key);
    if (last != null && (last.verdict() == Message.Verdict.CORRUPT || System.nanoTime() - last.atNanos() < REUSE.toNanos())) {
      return CompletableFuture.completedFuture(last);
    }
    CompletableFuture<Result> mine = new CompletableFuture<>();
    CompletableFuture<Result> running = pending.putIfAbsent(key, mine);
    if (running != null) {
      return running;
    }
    if (pending.size() > MAX_PENDING) {
      pending.remove(key, mine);
      throw new NrtClusterException(ErrorCode.TOO_MANY_REQUESTS, "more than " + MAX_PENDING + " files wait for verification");
    }
    try {
      thread.execute(() -> run(key, mine));
    } catch (RejectedExecutionException e) {
      pending.remove(key, mine);
      throw new NodeClosedException("primary " + log.name() + " is closing");
    }
    return mine;
  }

  private void run(Key key, CompletableFuture<Result> future) {
    try {
      Result r = check(key);
      if (known.size() >= MAX_REMEMBERED) {
        known.values().removeIf(old -> old.verdict() == Message.Verdict.INTACT);
      }
      known.put(key, r);
      future.complete(r);
    } catch (IOException | RuntimeException e) {
      future.completeExceptionally(e);
    } finally {
      pending.remove(key, future);
    }
  }

  private Result check(Key key) throws IOException {
    CopyState state = node.getCopyState();
    try {
      FileMetaData meta = state.files().get(key.name());
      if (meta == null) {
        throw new FileNotServableException("file '" + key.name() + "' is not in the primary's current point-in-time (version "
            + state.version() + ")");
      }
      if (meta.length() != key.length() || meta.checksum() != key.checksum()) {
        throw new FileNotServableException(String.format("file '%s' is %d bytes with checksum %x here, not %d bytes with %x",
            key.name(), meta.length(), meta.checksum(), key.length(), key.checksum()));
      }
      long start = System.nanoTime();
      CorruptIndexException corrupt = read(key.name());
      long millis = (System.nanoTime() - start) / 1_000_000;
      if (corrupt == null) {
        log.info("file {} ({} bytes) verified intact in {} ms", key.name(), key.length(), millis);
        return new Result(Message.Verdict.INTACT, "file " + key.name() + " verifies on the primary (" + key.length()
            + " bytes read in " + millis + " ms)", System.nanoTime());
      }
      log.error("file {} ({} bytes) of this primary is corrupt on its disk (verified in {} ms): {}", key.name(), key.length(),
          millis, corrupt.getMessage());
      raise(corrupt);
      return new Result(Message.Verdict.CORRUPT, "file " + key.name() + " is corrupt on the primary: " + corrupt.getMessage(),
          System.nanoTime());
    } finally {
      node.releaseCopyState(state);
    }
  }

  /** Reads the whole file; returns why it is corrupt, or null when it verifies. */
  private CorruptIndexException read(String name) {
    try (IndexInput in = dir.openInput(name, IOContext.READONCE)) {
      CodecUtil.checksumEntireFile(in);
      return null;
    } catch (CorruptIndexException e) {
      return e;
    } catch (IOException e) {
      // The current point-in-time references the file: unreadable or missing is as bad as corrupt.
      return new CorruptIndexException("cannot read a file of the current point-in-time: " + e, name, e);
    }
  }

  private void raise(CorruptIndexException corrupt) {
    if (corruptionRaised) {
      return;
    }
    corruptionRaised = true;
    try {
      onCorrupt.accept(corrupt);
    } catch (RuntimeException e) {
      log.error("handling the corrupt file {} failed", corrupt.getMessage(), e);
    }
  }

  void close() {
    thread.shutdownNow();
    for (CompletableFuture<Result> f : pending.values()) {
      f.completeExceptionally(new NodeClosedException("primary " + log.name() + " closed during verification"));
    }
  }
}
