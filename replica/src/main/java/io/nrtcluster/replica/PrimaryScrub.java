package io.nrtcluster.replica;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.SerialExecutor;
import io.nrtcluster.common.StorageException;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The background scrub of a primary's files, for a cluster node, which runs a primary and a replica
 * on one data directory (one at a time) and is the only part that sees both: the same {@link
 * Scrubber}, pace and guarantees as a replica's scrub, over the files of the point-in-time the
 * primary searches. It lives here because the primary module does not see the replica's.
 *
 * <p>Guarantees: as a replica's scrub, a file that fails its checksum is reported to {@code
 * corrupt} once per pass, and every other failure of a step is counted to {@link
 * ReplicaObserver#scrubFailed()} and followed by the next pass. {@link #forgetVerified} makes the
 * replica this node reopens as (after it stepped down, or after a crash) read a file again in its
 * check at start, although its record says it verified it and its modification time is unchanged:
 * if the file is still in the last commit, that replica quarantines it and names it among its
 * corrupt files, which keeps the node from being elected until a copy replaced it.
 */
@Internal
public final class PrimaryScrub {
  private final Scrubber scrubber;

  private PrimaryScrub(Scrubber scrubber) {
    this.scrubber = scrubber;
  }

  /**
   * Starts scrubbing, its first pass now (nothing when {@code config} is off).
   *
   * @param dataDir the data directory the primary and the replica share (its index in {@code
   *     dataDir/index}, as {@link ReplicaConfig#indexPath()})
   * @param searchedFiles the files of the point-in-time the primary searches now; empty when none
   * @param corrupt told of a file that failed its checksum (its name, why); runs on {@code executor}
   * @param executor the steps' serial executor, which the scrub shuts down when it closes
   */
  public static PrimaryScrub start(ScrubConfig config, Path dataDir, NodeLog log, ReplicaObserver observer,
      SerialExecutor executor, Supplier<Collection<String>> searchedFiles, BiConsumer<String, String> corrupt) {
    Objects.requireNonNull(searchedFiles, "searchedFiles");
    Objects.requireNonNull(corrupt, "corrupt");
    // Counts for the observer only (scrub failures): a primary has no replica statistics.
    ReplicaStats stats = new ReplicaStats(observer);
    Scrubber s = new Scrubber(config, dataDir.resolve("index"), log, stats, new Scrubber.Target() {
      @Override
      public Collection<String> searchedFiles() {
        return searchedFiles.get();
      }

      @Override
      public void corrupt(String fileName, String reason) {
        corrupt.accept(fileName, reason);
      }
    }, executor);
    s.start();
    return new PrimaryScrub(s);
  }

  /**
   * Durably forgets that {@code fileName} in {@code dataDir} was verified, so the next check at
   * start reads it again. Only while no replica is open on {@code dataDir}: the record is the
   * replica's, and an open replica keeps its own copy of it.
   */
  public static void forgetVerified(Path dataDir, String fileName) throws StorageException {
    VerifiedFiles.open(dataDir.resolve(FileIntegrity.RECORD_FILE)).forget(fileName);
  }

  /** Stops the scrub, waiting at most {@code millis} for a step under way (which ends by itself, within one step). */
  public void close(long millis) {
    scrubber.close(millis);
  }
}
