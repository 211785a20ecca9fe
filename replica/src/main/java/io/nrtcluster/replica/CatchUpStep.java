package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.replica.Replica.State;
import io.nrtcluster.transport.Connection;
import java.io.IOException;
import java.time.Duration;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * One attempt of a replica's {@link CatchUpLoop} to reach the newest point announced: reopens the
 * index first while a resync left it closed, then decides whether the point is searched already,
 * is being copied, or needs a copy, and starts that copy; a primary whose files conflict with the
 * last commit makes it resync.
 *
 * <p>Guarantees: a copy under way is not superseded before {@link ReplicaConfig#supersedeAfter()};
 * a point from a primary generation older than the highest seen is never copied; no failure ends
 * the catch-up (each is a retry with backoff); the attempt never waits for a copy to finish.
 */
final class CatchUpStep implements CatchUpLoop.Step {
  private final ReplicaContext ctx;
  private final NodeLog log;
  private final ReplicaLifecycle lifecycle;
  private final NodeOpener opener;
  private final PrimaryLink link;
  private final BadFileTracker badFiles;

  CatchUpStep(ReplicaContext ctx, ReplicaLifecycle lifecycle, NodeOpener opener, PrimaryLink link, BadFileTracker badFiles) {
    this.ctx = ctx;
    this.log = ctx.log();
    this.lifecycle = lifecycle;
    this.opener = opener;
    this.link = link;
    this.badFiles = badFiles;
  }

  @Override
  public CatchUpLoop.Outcome attempt(long gen, long version) {
    // A newer primary may have come meanwhile: reopen at the newest generation announced.
    lifecycle.resyncAtLeast(gen);
    if (lifecycle.state() == State.RESYNCING && !opener.reopen()) {
      // A failed reopen is retried with backoff: the replica never stops following.
      return CatchUpLoop.Outcome.RETRY;
    }
    ReplicatingReplicaNode n = lifecycle.node();
    if (lifecycle.state() != State.RUNNING || n == null) {
      return lifecycle.state() == State.CLOSED ? CatchUpLoop.Outcome.CAUGHT_UP : CatchUpLoop.Outcome.RETRY;
    }
    try {
      if (gen < ctx.store().highestPrimaryGen()) {
        return CatchUpLoop.Outcome.CAUGHT_UP;
      }
      n.announced(gen, version);
      n.confirmLocalCommit();
      if (gen == n.lastPrimaryGen() && version <= n.getCurrentSearchingVersion()) {
        return CatchUpLoop.Outcome.CAUGHT_UP;
      }
      if (gen == n.lastPrimaryGen() && n.timeline().copyingVersion() >= version) {
        return CatchUpLoop.Outcome.IN_FLIGHT;
      }
      long copying = n.timeline().copyingNanos();
      if (gen == n.lastPrimaryGen() && copying >= 0 && copying < ctx.config().supersedeAfter().toNanos()) {
        // A copy under way finishes first and the newest point is copied next: superseding it would
        // throw away requests already on the wire, and over a long link a copy superseded at every
        // refresh never installs anything.
        return CatchUpLoop.Outcome.IN_FLIGHT;
      }
      if (link.current() == null) {
        return CatchUpLoop.Outcome.RETRY;
      }
      CopyJob job = n.newNRTPoint(gen, version);
      return job != null ? CatchUpLoop.Outcome.IN_FLIGHT : CatchUpLoop.Outcome.RETRY;
    } catch (ResyncRequiredException e) {
      log.warn("{}", e.getMessage());
      opener.resync(e.primaryGen);
      return CatchUpLoop.Outcome.RETRY;
    } catch (StalePrimaryGenerationException e) {
      log.warn("{}", e.getMessage());
      return CatchUpLoop.Outcome.CAUGHT_UP;
    } catch (AlreadyClosedException e) {
      return CatchUpLoop.Outcome.RETRY;
    } catch (IOException | RuntimeException e) {
      log.warn("copying NRT point {} failed; will retry: {}", version, e.toString());
      return CatchUpLoop.Outcome.RETRY;
    }
  }

  /**
   * How long catching up must wait for a file reported to the primary we are connected to now. A
   * new primary (another generation) is never held off by reports to the old one.
   */
  Duration holdOff() {
    Connection c = link.current();
    return c == null ? Duration.ZERO : badFiles.holdOff(c.peerPrimaryGen());
  }
}
