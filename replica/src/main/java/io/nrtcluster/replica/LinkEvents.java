package io.nrtcluster.replica;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.replica.Replica.State;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.replicator.nrt.CopyJob;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * What a replica does with what its link to the primary hears: an NRT point (with or without the
 * copy-state pushed along) becomes the catch-up's target, a merge pre-copy starts a copy job, a
 * connection is announced to the primary, and the primary's acknowledgement is answered with the
 * version searched.
 *
 * <p>Guarantees: a point or pushed copy-state from a primary generation older than the highest seen
 * is refused ({@link StalePrimaryGenerationException}), and a pushed copy-state no copy will take is
 * released at once; only a point copied from a primary is reported as installed (a local commit may
 * hold unpublished writes); a pre-copy offered while the replica does not run is declined. Runs on
 * the link's threads; the copies it leads to run on the replica's copy executor ({@link
 * CopyJobRunner}).
 */
final class LinkEvents implements PrimaryLink.Listener {
  private final ReplicaContext ctx;
  private final NodeLog log;
  private final ReplicaLifecycle lifecycle;
  private final FileIntegrity integrity;
  private final Searchers searchers;
  private final SearchedVersions versions;
  private volatile PrimaryLink link;
  private volatile CatchUpLoop catchUp;

  LinkEvents(ReplicaContext ctx, ReplicaLifecycle lifecycle, FileIntegrity integrity, Searchers searchers,
      SearchedVersions versions) {
    this.ctx = ctx;
    this.log = ctx.log();
    this.lifecycle = lifecycle;
    this.integrity = integrity;
    this.searchers = searchers;
    this.versions = versions;
  }

  /**
   * The link these events come from and the catch-up they feed; set before the link connects, since
   * the link is built with this as its listener and the catch-up after it.
   */
  void attach(PrimaryLink link, CatchUpLoop catchUp) {
    this.link = link;
    this.catchUp = catchUp;
  }

  @Override
  public void onNrtPoint(long primaryGen, long version) throws Exception {
    if (primaryGen < ctx.store().highestPrimaryGen()) {
      ctx.stats().staleGenerationRefused();
      throw new StalePrimaryGenerationException("NRT point " + version + " is from generation " + primaryGen
          + " but generation " + ctx.store().highestPrimaryGen() + " was already seen");
    }
    versions.announced(version, searchingVersion());
    catchUp.announce(primaryGen, version);
  }

  @Override
  public void onNrtPointCopyState(Connection c, Message.CopyStateReply s) throws Exception {
    PushedCopyStates.Pushed pushed = new PushedCopyStates.Pushed(c, s);
    if (s.primaryGen() < ctx.store().highestPrimaryGen()) {
      pushed.release();
      onNrtPoint(s.primaryGen(), s.version());
      return;
    }
    if (s.version() <= searchingVersion() && s.primaryGen() == primaryGen()) {
      pushed.release();
      ReplicatingReplicaNode n = lifecycle.node();
      if (n != null) {
        // Nothing to copy, but it may say the local commit's point is published.
        n.announced(s.primaryGen(), s.version());
      }
      return;
    }
    // Offered before it is announced, so the catch-up that the announcement wakes finds it.
    link.pushed().offer(pushed);
    onNrtPoint(s.primaryGen(), s.version());
  }

  @Override
  public void onPreCopy(Connection c, Message.PreCopyMerge m) throws Exception {
    ReplicatingReplicaNode n = lifecycle.node();
    if (lifecycle.state() != State.RUNNING || n == null || !n.isStarted()) {
      c.reply(new Message.PreCopyDone(m.requestId(), false));
      return;
    }
    Map<String, FileMetaData> files = FileMetaValidator.fromWire(m.files());
    AtomicBoolean finished = new AtomicBoolean();
    CopyJob job = n.preCopyMerge(m.preCopyId(), m.primaryGen(), files, finished);
    PreCopyReporter.start(link.scheduler(), c, m.requestId(), job, finished, () -> lifecycle.state() == State.CLOSED,
        ctx.stats(), ctx.config().preCopyProgressInterval());
  }

  @Override
  public void onConnected(Connection c) {
    link.announce();
    ReplicatingReplicaNode n = lifecycle.node();
    if (n != null && n.searchesUnpublishedCommit()) {
      // No point is announced by an idle primary: the catch-up asks it whether the local commit's
      // point is published (a version no primary announces, so it starts no copy).
      catchUp.announce(c.peerPrimaryGen(), -1);
    }
    catchUp.wakeUp();
  }

  @Override
  public long searchingVersion() {
    return searchers.searchingVersion();
  }

  @Override
  public void onAnnounced(Connection c) {
    ReplicatingReplicaNode n = lifecycle.node();
    if (n == null || !n.isStarted() || integrity.awaitingRepair() || n.installedPrimaryGen() < 0) {
      // Only a point copied from a primary is reported: a local commit may hold unpublished writes.
      return;
    }
    try {
      link.reportInstalled(n.installedPrimaryGen(), n.getCurrentSearchingVersion(), n.incarnation());
    } catch (IOException | AlreadyClosedException e) {
      log.debug("not reporting the searched version: {}", e.toString());
    }
  }

  /** Primary generation of the point-in-time searched now. */
  private long primaryGen() {
    ReplicatingReplicaNode n = lifecycle.node();
    return n == null ? -1 : n.lastPrimaryGen();
  }
}
