package io.nrtcluster.node;

import io.nrtcluster.common.CorruptIndexReadException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.LocalFileRecord;
import io.nrtcluster.replica.Replica;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.FilterLeafReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SegmentCommitInfo;
import org.apache.lucene.index.SegmentReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.apache.lucene.util.StringHelper;

/**
 * Reads of documents that failed on possibly corrupt bytes, and the check they trigger. The start
 * check and the record of verified files trust a file whose length, footer and modification time
 * are unchanged, and the scrub passes once an hour: rot that a read hits is found here, at once.
 *
 * <p>Guarantees: {@link #report} never blocks on the disk; it returns the typed, retryable error
 * and queues a check of the whole checksum of every file of the document's segment (of every
 * segment when the document is not known) on this node's own serial executor ({@link
 * io.nrtcluster.common.ExecutorSource.Pool#WORK}), at most once a minute per segment (so a failure
 * that is not corruption costs one read of the segment, not one per request). A file that fails is
 * logged and counted once and handed to the role open now: a replica quarantines it and copies it
 * again; a primary records it as corrupt in the replica's record of verified files (the replica it
 * becomes reads it again before it opens, and ranks in no election while it holds it) and then makes
 * it a tragic event of its writer, so {@link LostWriterWatch} steps it down. A role that closed
 * meanwhile is left alone: the next one verifies its files when it opens.
 */
final class UnreadableReads {
  static final long RECHECK_NANOS = TimeUnit.MINUTES.toNanos(1);

  /** One segment to check, captured while the reader is open (the check may run after it closed). */
  private record Suspect(String segment, String key, Directory dir, List<String> files) {}

  private final RoleSwitch roles;
  private final String index;
  private final Path dataDir;
  private final NodeLog log;
  private final Supplier<IndexMetrics> metrics;
  private final SerialExecutor executor;
  /** When each segment (name, id and generations) was last queued for a check. */
  private final Map<String, Long> queuedAt = new ConcurrentHashMap<>();
  /** Files a check found corrupt: each is logged and counted once. */
  private final Set<String> found = ConcurrentHashMap.newKeySet();

  /**
   * @param dataDir the index's data directory (where the replica keeps its record of verified files)
   * @param executor runs the checks; shut down by {@link #close}
   */
  UnreadableReads(RoleSwitch roles, String index, Path dataDir, NodeLog log, Supplier<IndexMetrics> metrics,
      SerialExecutor executor) {
    this.roles = roles;
    this.index = index;
    this.dataDir = dataDir;
    this.log = log;
    this.metrics = metrics;
    this.executor = executor;
  }

  /**
   * Document {@code docId} of {@code searcher} (-1: not known) could not be read because of {@code
   * cause}: queues the check and returns the error for the caller to throw.
   */
  CorruptIndexReadException report(IndexSearcher searcher, int docId, Throwable cause) {
    metrics.get().unreadableRead();
    String segment = null;
    try {
      List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
      boolean known = docId >= 0 && docId < searcher.getIndexReader().maxDoc();
      List<LeafReaderContext> suspects = known ? List.of(leaves.get(ReaderUtil.subIndex(docId, leaves))) : leaves;
      for (LeafReaderContext leaf : suspects) {
        Suspect s = suspect(leaf.reader());
        if (s != null) {
          segment = known ? s.segment() : null;
          queue(s, docId, cause);
        }
      }
    } catch (AlreadyClosedException e) {
      // Released before it was reported: nothing to map the document to; the error still stands.
      log.warn("a read of document {} failed ({}) but its searcher was closed before the report: not checked", docId,
          String.valueOf(cause));
    }
    return new CorruptIndexReadException("could not read document " + docId + " of index " + index + " on "
        + log.name() + (segment == null ? "" : " (segment " + segment + ")") + ": " + cause
        + "; its files are being checked: retry", segment, cause);
  }

  private Suspect suspect(LeafReader reader) {
    if (!(FilterLeafReader.unwrap(reader) instanceof SegmentReader sr)) {
      return null;
    }
    SegmentCommitInfo si = sr.getSegmentInfo();
    try {
      String key = sr.getSegmentName() + "/" + StringHelper.idToString(si.info.getId()) + "/" + si.getDelGen() + "/"
          + si.getFieldInfosGen() + "/" + si.getDocValuesGen();
      return new Suspect(sr.getSegmentName(), key, sr.directory(), List.copyOf(si.files()));
    } catch (IOException e) {
      log.warn("cannot list the files of segment {}: {}", sr.getSegmentName(), e.toString());
      return null;
    }
  }

  private void queue(Suspect s, int docId, Throwable cause) {
    long now = System.nanoTime();
    long at = queuedAt.compute(s.key(), (k, last) -> last != null && now - last < RECHECK_NANOS ? last : now);
    if (at != now) {
      return;
    }
    if (queuedAt.size() > 1024) {
      queuedAt.values().removeIf(last -> now - last >= RECHECK_NANOS);
    }
    log.warn("a read of document {} in segment {} failed ({}); checking the checksums of its {} files", docId, s.segment(),
        String.valueOf(cause), s.files().size());
    try {
      executor.execute(() -> check(s));
    } catch (RejectedExecutionException e) {
      // Closed meanwhile.
    }
  }

  private void check(Suspect s) {
    long start = System.nanoTime();
    long bytes = 0;
    List<CorruptIndexException> corrupt = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (String name : s.files()) {
      try (IndexInput in = s.dir().openInput(name, IOContext.READONCE)) {
        bytes += in.length();
        CodecUtil.checksumEntireFile(in);
      } catch (CorruptIndexException e) {
        corrupt.add(e);
        names.add(name);
      } catch (EOFException e) {
        corrupt.add(new CorruptIndexException("truncated: " + e.getMessage(), name, e));
        names.add(name);
      } catch (NoSuchFileException | FileNotFoundException e) {
        // Merged away, or quarantined by the scrub meanwhile: the index searched now no longer holds it.
      } catch (AlreadyClosedException e) {
        log.info("segment {} was not checked: its index closed (a role switch); the next one verifies its files", s.segment());
        return;
      } catch (IOException e) {
        log.warn("checking file {} of segment {} failed: {}", name, s.segment(), e.toString());
      }
    }
    if (corrupt.isEmpty()) {
      log.warn("the files of segment {} are intact on disk ({} bytes checked in {} ms): the failed read was not rot in "
          + "them, or its searcher still reads files replaced since", s.segment(), bytes, (System.nanoTime() - start) / 1_000_000);
      return;
    }
    for (int i = 0; i < names.size(); i++) {
      corruptFound(names.get(i), s.segment(), corrupt.get(i));
    }
  }

  private void corruptFound(String name, String segment, CorruptIndexException e) {
    IndexSnapshot snap = roles.snapshot();
    Primary p = snap.primary();
    Replica r = snap.replica();
    boolean first = found.add(name);
    if (first) {
      metrics.get().corruptFileFoundByRead();
      log.error("file {} of segment {} failed its checksum after a failed read ({}); {}", name, segment, e.getMessage(),
          p != null ? "the primary steps down and leads no more while it holds it"
              : r != null ? "quarantining it and copying it again" : "no index is open to repair it; the next one verifies it");
    }
    if (p != null) {
      try {
        // Before the tragic event: the replica that the step-down opens must find the mark.
        LocalFileRecord.markCorrupt(dataDir, name);
      } catch (IOException io) {
        log.warn("could not mark {} corrupt in the record of verified files: {}", name, io.toString());
      }
      p.writer().onTragicEvent(e, "read check");
    } else if (r != null) {
      r.corruptFileRead(name);
    }
  }

  /** Stops checking; a check under way ends by itself (it only reads). */
  void close() {
    executor.shutdown();
  }
}
