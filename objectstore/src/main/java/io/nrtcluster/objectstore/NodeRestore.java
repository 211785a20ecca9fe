package io.nrtcluster.objectstore;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.Stable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.replicator.nrt.Node;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.IOUtils;

/**
 * Puts a backed-up point into one index's node directory ({@code <host data>/<index>}, which holds the
 * Lucene index in {@code index/} and the node's durable facts in {@code node.state}, as the primary and
 * replica lay them out), before the index opens there.
 *
 * <ul>
 *   <li>{@link #bootstrap}: for a replica with an empty or stale directory. The newest backup is
 *       restored beside the index ({@code index.restoring/}, every byte verified by {@link Restorer}),
 *       then swapped in; the node then catches up from the primary, so only the difference crosses the
 *       primary's link. A store that cannot be used (a damaged or missing object, a manifest that does
 *       not parse, the store unreachable or refusing) leaves the local index exactly as it was and
 *       reports the typed error: the node copies from the primary as without a store.
 *   <li>{@link #restore}: for {@code bin/nrt restore} and a whole-cluster restore, into an empty
 *       directory, failing with the typed error.
 * </ul>
 *
 * Both record in {@code node.state} the highest primary generation of any manifest in the store
 * ({@link ManifestStore#highestPrimaryGen()}) and the restored version. {@link #restore} also stamps
 * the restored commit with the store's highest version and generation (the documents are the
 * backed-up version's): the node reports them to the election, which claims an epoch above every
 * generation its members report and starts versions above theirs, so a restored node that starts as
 * the first member of an empty cluster becomes primary with a generation above every generation in
 * the store, and no version number is reused with other contents. A bootstrap leaves the point as it
 * was backed up: the cluster it joins already leads above it. Never run either on a directory an
 * open index uses.
 */
@Stable
public final class NodeRestore {
  /** The Lucene index's sub-directory ({@code PrimaryConfig.indexPath}, {@code ReplicaConfig.indexPath}). */
  static final String INDEX_DIR = "index";
  /** The node's durable facts ({@code PrimaryConfig.statePath}, {@code ReplicaConfig.statePath}). */
  static final String STATE_FILE = "node.state";
  private static final String RESTORING_DIR = "index.restoring";
  private static final String REPLACED_DIR = "index.replaced";

  private final ManifestStore manifests;
  private final NodeLog log;

  /** Restores from the backups {@code manifests} lists, logging through {@code log}. */
  public NodeRestore(ManifestStore manifests, NodeLog log) {
    this.manifests = manifests;
    this.log = log;
  }

  /**
   * Restores the newest backup into {@code nodeDir} when its index is empty, missing or older than
   * that backup; leaves it alone otherwise. Never fails because of the store: see {@link
   * BootstrapResult.Outcome#FELL_BACK}.
   *
   * @throws IOException only for the local disk (the swap of the restored index into place)
   */
  public BootstrapResult bootstrap(Path nodeDir) throws IOException {
    return bootstrap(nodeDir, Deadline.NONE);
  }

  /**
   * {@link #bootstrap(Path)} whose first look at the store (the listing of its backups) sends no
   * request from {@code firstLook} on: a store that does not answer costs it that long, then it falls
   * back. Once the store answered, the restore takes the store's usual retries.
   */
  BootstrapResult bootstrap(Path nodeDir, Deadline firstLook) throws IOException {
    Path indexPath = nodeDir.resolve(INDEX_DIR);
    cleanLeftovers(nodeDir);
    long local = localVersion(indexPath);
    ManifestId id;
    try {
      Optional<ManifestId> newest = manifests.latestId(firstLook);
      if (newest.isEmpty()) {
        log.info("no backup of {} in the store: copying from the primary", manifests.layout().root());
        return new BootstrapResult(BootstrapResult.Outcome.NO_BACKUP, local, null, null);
      }
      id = newest.get();
    } catch (IOException | RuntimeException e) {
      return fellBack(local, null, e);
    }
    if (local >= id.version()) {
      log.info("local index at version {}, the newest backup at {}: not restoring", local, id.version());
      return new BootstrapResult(BootstrapResult.Outcome.UP_TO_DATE, local, id, null);
    }
    Path restoring = nodeDir.resolve(RESTORING_DIR);
    try {
      restoreInto(id, restoring, nodeDir);
    } catch (IOException | RuntimeException e) {
      IOUtils.rm(restoring);
      return fellBack(local, id, e);
    }
    swapIn(nodeDir, restoring, indexPath);
    log.info("bootstrapped from backup {} (version {}, local index was at {}): catching up from the primary",
        id.key(), id.version(), local);
    return new BootstrapResult(BootstrapResult.Outcome.RESTORED, local, id, null);
  }

  /** The fallback of a bootstrap that did not look at the store at all: it was known not to answer. */
  BootstrapResult skipped(Path nodeDir, Exception why) throws IOException {
    cleanLeftovers(nodeDir);
    return fellBack(localVersion(nodeDir.resolve(INDEX_DIR)), null, why);
  }

  private BootstrapResult fellBack(long local, ManifestId id, Exception e) {
    log.warn("not bootstrapping from the store ({}): copying from the primary", e.toString());
    return new BootstrapResult(BootstrapResult.Outcome.FELL_BACK, local, id, e);
  }

  /**
   * Restores {@code version} (or the newest backup, when empty) into {@code nodeDir}, whose index
   * must be empty or missing.
   *
   * @return the manifest restored
   * @throws CorruptBackupException an object failed verification (named); nothing is left behind
   * @throws BackupNotFoundException no such backup
   * @throws NrtClusterException {@link ErrorCode#REFUSED} when the index there is not empty
   */
  public Manifest restore(Optional<Long> version, Path nodeDir) throws IOException {
    Path indexPath = nodeDir.resolve(INDEX_DIR);
    if (Files.isDirectory(indexPath)) {
      try (var list = Files.list(indexPath)) {
        if (list.anyMatch(p -> !p.getFileName().toString().equals("write.lock"))) {
          throw new NrtClusterException(ErrorCode.REFUSED, "restore target " + indexPath
              + " is not empty; restore into an empty directory");
        }
      }
    }
    ManifestId id = version.isPresent()
        ? manifests.find(version.get()).orElseThrow(() -> new BackupNotFoundException(
            "no backup of version " + version.get() + " of " + manifests.layout().root()))
        : manifests.latestId().orElseThrow(() -> new BackupNotFoundException("no backup of " + manifests.layout().root()));
    long highestVersion = manifests.latestId().map(ManifestId::version).orElse(id.version());
    long highestGen = Math.max(manifests.highestPrimaryGen(), id.primaryGen());
    Manifest m = restoreInto(id, indexPath, nodeDir);
    raiseTo(indexPath, Math.max(highestVersion, m.version()), highestGen);
    GenerationStore.open(nodeDir.resolve(STATE_FILE)).observeVersion(highestVersion);
    return m;
  }

  /**
   * Re-commits the restored point (same segments, same documents) stamped with the store's highest
   * version and generation: the node reports them to the election, whose first epoch and first
   * version then lie above every point in the store, so the new cluster's points and backups never
   * share a number with the old ones (and {@code latest} names the new cluster's newest backup).
   */
  private static void raiseTo(Path indexPath, long version, long gen) throws IOException {
    try (Directory dir = FSDirectory.open(indexPath)) {
      SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
      String restored = infos.getSegmentsFileName();
      Map<String, String> data = new HashMap<>(infos.getUserData());
      data.put(Node.PRIMARY_GEN_KEY, Long.toString(gen));
      data.put(Node.VERSION_KEY, Long.toString(version));
      infos.setUserData(data, false);
      infos.version = version;
      infos.commit(dir);
      dir.deleteFile(restored);
      dir.syncMetaData();
    }
  }

  private Manifest restoreInto(ManifestId id, Path indexPath, Path nodeDir) throws IOException {
    long highestGen = Math.max(manifests.highestPrimaryGen(), id.primaryGen());
    Files.createDirectories(indexPath);
    Manifest m;
    try (Directory dir = FSDirectory.open(indexPath); Restorer restorer = new Restorer(manifests, log)) {
      m = restorer.restore(id, dir);
    }
    GenerationStore state = GenerationStore.open(nodeDir.resolve(STATE_FILE));
    state.observeGeneration(highestGen);
    state.observeVersion(m.version());
    return m;
  }

  /** The version of the newest commit in {@code indexPath}; -1 when there is none (or it cannot be read). */
  static long localVersion(Path indexPath) {
    if (!Files.isDirectory(indexPath)) {
      return -1;
    }
    try (Directory dir = FSDirectory.open(indexPath)) {
      if (!DirectoryReader.indexExists(dir)) {
        return -1;
      }
      return SegmentInfos.readLatestCommit(dir).getVersion();
    } catch (IndexNotFoundException | NoSuchFileException e) {
      return -1;
    } catch (IOException e) {
      // Unreadable: the replica's own start-up checks deal with it; a backup is no worse a start.
      return -1;
    }
  }

  /** The restored index replaces the old one; a crash in between leaves no index, and the node copies from the primary. */
  private static void swapIn(Path nodeDir, Path restoring, Path indexPath) throws IOException {
    Path replaced = nodeDir.resolve(REPLACED_DIR);
    if (Files.exists(indexPath)) {
      Files.move(indexPath, replaced, StandardCopyOption.ATOMIC_MOVE);
    }
    Files.move(restoring, indexPath, StandardCopyOption.ATOMIC_MOVE);
    IOUtils.fsync(nodeDir, true);
    IOUtils.rm(replaced);
  }

  private static void cleanLeftovers(Path nodeDir) throws IOException {
    IOUtils.rm(nodeDir.resolve(RESTORING_DIR), nodeDir.resolve(REPLACED_DIR));
  }
}
