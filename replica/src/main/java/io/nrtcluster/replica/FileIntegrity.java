package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StorageException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * The integrity of one replica's local files: the check before its index is opened, the record of
 * verified files, the corrupt files not yet replaced, and whether searches must wait for a copy.
 *
 * <p>Guarantees: while a corrupt file found here is not replaced by a copy from a primary, {@link
 * #corruptFiles()} names it (also across restarts) and {@link #awaitingRepair()} is true after its
 * commit was dropped, so the replica serves no searcher built from what was left; the first
 * point-in-time installed from a primary (every file verified in transit) clears both.
 */
final class FileIntegrity {
  static final String RECORD_FILE = "verified.files";
  static final String QUARANTINE_DIR = "quarantine";

  private final ReplicaConfig config;
  private final NodeLog log;
  private final ReplicaStats stats;
  private final VerifiedFiles record;
  private final LocalFileVerifier verifier;
  /** Files the scrub (or the node, after a read) already counted, so the check that follows does not count them again. */
  private final Set<String> foundByScrub = ConcurrentHashMap.newKeySet();
  private volatile boolean awaitingRepair;

  FileIntegrity(ReplicaConfig config, NodeLog log, ReplicaStats stats) throws StorageException {
    this.config = config;
    this.log = log;
    this.stats = stats;
    this.record = VerifiedFiles.open(config.dataDir().resolve(RECORD_FILE));
    if (record.beginSession()) {
      log.warn("the last process did not stop cleanly: every file of the last commit is read again at start");
    }
    this.verifier = new LocalFileVerifier(config.indexPath(), config.dataDir().resolve(QUARANTINE_DIR), record, log);
    this.awaitingRepair = !record.corrupt().isEmpty();
  }

  /** The replica closed cleanly: the next process may trust what the record says was verified. */
  void stoppedCleanly() {
    try {
      record.endSessionCleanly();
    } catch (StorageException e) {
      log.warn("could not record the clean stop (the next start reads every file again): {}", e.toString());
    }
  }

  /** Verifies the last commit before the index is opened (nothing may have it open). */
  void verifyBeforeOpen() throws IOException {
    LocalFileVerifier.Result r = verifier.verifyLastCommit();
    stats.verified(r.bytesRead());
    for (String name : r.corrupt()) {
      if (!foundByScrub.remove(name)) {
        stats.corruptFileFound(name, false);
      }
    }
    stats.quarantined(r.quarantined());
    if (r.commitDropped()) {
      awaitingRepair = true;
    }
    if (r.filesRead() > 0) {
      double mib = r.bytesRead() / (1024.0 * 1024.0);
      double secs = Math.max(r.nanos(), 1) / 1e9;
      log.info("verified {} files ({} MiB) of the last commit in {} ms ({} MiB/s)", r.filesRead(),
          String.format("%.1f", mib), r.nanos() / 1_000_000, String.format("%.0f", mib / secs));
    }
  }

  /**
   * The scrub, or the check after a failed read (which the node counts itself), found {@code name}
   * corrupt: the next check reads it again (and quarantines it) without counting it as found at start.
   */
  void found(String name, boolean byScrub) throws StorageException {
    foundByScrub.add(name);
    if (byScrub) {
      stats.corruptFileFound(name, true);
    }
    record.forget(name);
  }

  /**
   * A point-in-time copied from a primary is searched now: its copied files are recorded as
   * verified (their checksums were checked in transit) and whatever was corrupt is replaced.
   */
  void installed(CopyState state) {
    try {
      Map<String, VerifiedFiles.Stamp> stamps = new HashMap<>();
      for (Map.Entry<String, FileMetaData> e : state.files().entrySet()) {
        FileMetaData m = e.getValue();
        if (!record.has(e.getKey(), m.length(), m.checksum())) {
          VerifiedFiles.Stamp s = LocalFileVerifier.stampOfCopied(config.indexPath(), e.getKey(), m.length(), m.checksum());
          if (s != null) {
            stamps.put(e.getKey(), s);
          }
        }
      }
      record.record(stamps, existingFiles());
      record.clearCorrupt();
      awaitingRepair = false;
    } catch (IOException e) {
      // The files are verified again at the next start; the replica itself is fine.
      log.warn("recording the verified files failed: {}", e.toString());
    }
  }

  private Set<String> existingFiles() throws IOException {
    try (Stream<Path> files = Files.list(config.indexPath())) {
      return files.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  /** Corrupt files not yet replaced from a primary (durable), sorted. */
  List<String> corruptFiles() {
    return record.corrupt();
  }

  /** True while the commit was dropped for a corrupt file and no copy from a primary replaced it. */
  boolean awaitingRepair() {
    return awaitingRepair;
  }
}
