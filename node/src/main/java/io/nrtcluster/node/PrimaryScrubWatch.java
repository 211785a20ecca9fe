package io.nrtcluster.node;

import io.nrtcluster.common.ExecutorSource;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StorageException;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.PrimaryScrub;
import io.nrtcluster.replica.ScrubConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.StandardDirectoryReader;
import org.apache.lucene.search.IndexSearcher;

/**
 * Scrubs the files of the primary this node holds, as its replicas scrub theirs ({@link
 * ReplicaTuning#scrub()}, the same pace): otherwise bit rot in a file every replica already copied
 * is found by nobody, and the node that holds it may later hand it to a new replica, or lead again
 * after a restart with it.
 *
 * <p>Guarantees: at most one scrub runs, over the primary of the index's current snapshot; it starts
 * within one progress report (about 100 ms) after a primary opened and stops within one after it
 * closed (meanwhile it reads nothing of a closed primary: its searched files are empty). A file that
 * fails its checksum is a tragic event of that primary's writer (a {@link CorruptIndexException}, as
 * when a replica's report is confirmed), which {@link LostWriterWatch} turns into a step-down
 * (reason {@code CORRUPT_INDEX}); the replica the node reopens as reads the file again at start
 * ({@link PrimaryScrub}), so the node cannot lead again while it still holds the file. Never waits:
 * it runs on the progress report's executor.
 */
final class PrimaryScrubWatch {
  private final NrtHost host;
  private final RoleSwitch roles;
  private final Path dataDir;
  private final String index;
  private final NodeLog log;
  private final Supplier<IndexMetrics> metrics;
  private Primary scrubbed;
  private PrimaryScrub scrub;
  private boolean closed;

  PrimaryScrubWatch(NrtHost host, RoleSwitch roles, Path dataDir, String index, NodeLog log, Supplier<IndexMetrics> metrics) {
    this.host = host;
    this.roles = roles;
    this.dataDir = dataDir;
    this.index = index;
    this.log = log;
    this.metrics = metrics;
  }

  /** The periodic look: scrubs the primary open now, and nothing else. */
  synchronized void check() {
    Primary p = roles.snapshot().primary();
    if (closed || p == scrubbed) {
      return;
    }
    stopScrub();
    ScrubConfig config = host.config().replicaTuning().scrub();
    if (p == null || !config.enabled() || RoleSwitch.writerLost(p)) {
      return;
    }
    scrubbed = p;
    scrub = PrimaryScrub.start(config, dataDir, log, metrics.get().replicaObserver(),
        host.executors().serial(ExecutorSource.Pool.WORK, "nrt-scrub-" + host.nodeId() + "-" + index),
        () -> searchedFiles(p), (name, reason) -> corrupt(p, name, reason));
  }

  /** Stops for good (the node closes); a step under way ends by itself. */
  synchronized void close() {
    closed = true;
    stopScrub();
  }

  private void stopScrub() {
    if (scrub != null) {
      // No wait: this runs on the progress report's executor, which must never wait.
      scrub.close(0);
      scrub = null;
    }
    scrubbed = null;
  }

  /** The files of the point-in-time {@code p} searches; none once it closed. */
  private static Collection<String> searchedFiles(Primary p) {
    IndexSearcher s;
    try {
      s = p.acquireSearcher();
    } catch (NodeClosedException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      return s.getIndexReader() instanceof StandardDirectoryReader r ? r.getSegmentInfos().files(false) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        p.releaseSearcher(s);
      } catch (IOException | RuntimeException e) {
        // Only once the primary closed, which lets its readers go anyway.
      }
    }
  }

  /** On the scrub's executor. */
  private void corrupt(Primary p, String name, String reason) {
    synchronized (this) {
      // A primary closed meanwhile leaves the file to the replica opened since, whose record must not
      // be rewritten under it (that replica's scrub reads the file too).
      if (closed || roles.snapshot().primary() != p) {
        return;
      }
    }
    // Not under the monitor: the record's write is fsynced, and the progress report's check (which
    // must never wait) takes the monitor. A replica opening in between can only be one this primary's
    // close let open, whose own start check reads what the record no longer vouches for.
    log.error("scrub: file {} of the primary failed its checksum ({}); recording a tragic event on the writer", name, reason);
    try {
      // First: the step-down that follows reopens a replica, whose check at start must read the file.
      PrimaryScrub.forgetVerified(dataDir, name);
    } catch (StorageException e) {
      log.warn("could not update the record of verified files: {}", e.toString());
    }
    p.writer().onTragicEvent(new CorruptIndexException("the scrub found file " + name + " corrupt: " + reason, name), "scrub");
  }
}
