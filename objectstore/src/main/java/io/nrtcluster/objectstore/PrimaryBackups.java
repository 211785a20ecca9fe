package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.ClusterNodeInternals;
import io.nrtcluster.node.RoleListener;
import io.nrtcluster.primary.HeldPoint;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PointListener;
import java.io.Closeable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.LoggerFactory;

/**
 * Automatic backups of one index from whichever node of the cluster is its primary: attach one to the
 * index on every node ({@link #attach}); while the node leads, each commit (or each published NRT
 * point, {@link BackupMode#EVERY_POINT}) goes to a {@link BackupService} on the index's {@link
 * StoreLayout}.
 *
 * <p>The seam: {@code node} and {@code primary} know nothing of object stores. A primary hands each
 * point, its files held, to a {@link PointListener}; this class installs itself as that listener on
 * every {@link Primary} the node opens (it hears of them as a {@link RoleListener}), and nothing else.
 *
 * <p>Guarantees: a refresh or commit never waits for the store (the point is handed to the backup
 * service's thread, which takes the newest waiting point, see {@link BackupService}); a point older
 * than one already handed over is released at once; when the node stops leading, its backup service
 * closes (a backup under way writes no manifest) and the next primary, with its own instance on the
 * same layout, continues there: files are keyed by name, length and checksum, so what the old primary
 * uploaded is found and not sent again.
 */
@Experimental
public final class PrimaryBackups implements RoleListener, Closeable {
  private final ManifestStore manifests;
  private final BackupMode mode;
  private final NodeLog log;
  private final DamagedObjects damaged;
  private final Object lock = new Object();
  /** The primary backed up now and its service; guarded by {@link #lock}. */
  private Primary primary;
  private BackupService service;
  private long lastHandedVersion = -1;
  private CompletableFuture<BackupResult> last = CompletableFuture.completedFuture(null);
  private boolean closed;

  /**
   * @param manifests the index's place in the store ({@link StoreLayout#of} with the cluster and index names)
   * @param mode which points to back up
   * @param logName the name log lines start with (for example {@code "N1/docs"})
   */
  public PrimaryBackups(ManifestStore manifests, BackupMode mode, String logName) {
    this(manifests, mode, logName, new DamagedObjects());
  }

  /**
   * As {@link #PrimaryBackups(ManifestStore, BackupMode, String)}, with the index's objects a
   * verification found damaged: every backup uploads a fresh copy of those it names ({@link
   * BackupService#BackupService(ManifestStore, NodeLog, DamagedObjects)}).
   */
  public PrimaryBackups(ManifestStore manifests, BackupMode mode, String logName, DamagedObjects damaged) {
    this.manifests = manifests;
    this.mode = mode;
    this.damaged = Checks.notNull("damaged", damaged);
    this.log = new NodeLog(LoggerFactory.getLogger(PrimaryBackups.class), logName, this::generation);
  }

  private long generation() {
    Primary p;
    synchronized (lock) {
      p = primary;
    }
    return p == null ? -1 : p.primaryGen();
  }

  /**
   * Starts backing up {@code node} whenever it leads, now included if it already does. Call once per
   * node; or pass this instance to {@code NrtHost.openIndex} as a role listener instead.
   */
  public PrimaryBackups attach(ClusterNode node) {
    node.addRoleListener(this);
    if (node.role() == Role.PRIMARY) {
      onRoleChange(node, Role.PRIMARY, node.primaryGen());
    }
    return this;
  }

  @Override
  public void onRoleChange(ClusterNode node, Role role, long primaryGen) {
    if (role == Role.FENCED) {
      return; // the same primary: its refreshes and commits fail at the gate until it knows more
    }
    Primary next = role == Role.PRIMARY ? ClusterNodeInternals.primaryOf(node) : null;
    BackupService retired = null;
    Primary previous;
    synchronized (lock) {
      if (closed || next == primary) {
        return;
      }
      previous = primary;
      retired = service;
      primary = next;
      service = next == null ? null : new BackupService(manifests, log, damaged);
      lastHandedVersion = -1;
    }
    if (previous != null) {
      previous.setPointListener(null);
    }
    if (retired != null) {
      // On the election thread: interrupt, never wait (the old primary's files are gone anyway).
      retired.close(Duration.ZERO);
    }
    if (next != null) {
      next.setPointListener(new Listener(next));
      log.info("backing up {} of primary generation {} to {}", mode == BackupMode.EVERY_POINT ? "every NRT point"
          : "every commit", next.primaryGen(), manifests.layout().root());
    }
  }

  /** The newest backup handed to the service (completed with null before any). */
  public CompletableFuture<BackupResult> lastBackup() {
    synchronized (lock) {
      return last;
    }
  }

  /** The index's objects known damaged, which the next backup naming them uploads again. */
  public DamagedObjects damagedObjects() {
    return damaged;
  }

  /** The counters of the store connection the backups use. */
  public ObjectStoreMetrics metrics() {
    return manifests.blobStore().metrics();
  }

  /** Stops backing up: the primary's listener is removed and a backup under way is abandoned. */
  @Override
  public void close() {
    Primary p;
    BackupService s;
    synchronized (lock) {
      closed = true;
      p = primary;
      s = service;
      primary = null;
      service = null;
    }
    if (p != null) {
      p.setPointListener(null);
    }
    if (s != null) {
      s.close(Duration.ofSeconds(5));
    }
  }

  /** The listener installed on one primary: hands its points to the service of that primary. */
  private final class Listener implements PointListener {
    private final Primary owner;

    Listener(Primary owner) {
      this.owner = owner;
    }

    @Override
    public boolean everyRefresh() {
      return mode == BackupMode.EVERY_POINT;
    }

    @Override
    public void pointReady(HeldPoint point) {
      BackupService s;
      long version = point.state().version();
      synchronized (lock) {
        s = primary == owner ? service : null;
        // Older than one handed over, or the same (a commit with no refresh since) unless that one failed.
        if (s != null && (version < lastHandedVersion
            || (version == lastHandedVersion && !last.isCompletedExceptionally()))) {
          s = null;
        }
        if (s != null) {
          lastHandedVersion = version;
        }
      }
      if (s == null) {
        point.close();
        return;
      }
      try {
        CompletableFuture<BackupResult> f =
            s.submit(BackupSource.of(point.directory(), BackupPoint.of(point.state(), point.userData()), point::close));
        synchronized (lock) {
          last = f;
        }
      } catch (RuntimeException e) {
        log.warn("could not hand version {} to the backups: {}", version, e.toString());
        point.close();
      }
    }
  }
}
