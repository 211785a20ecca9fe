package io.nrtcluster.node;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.WriterLostException;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.StepDown;
import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.replica.Replica;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexWriter;

/**
 * Notices that the primary's Lucene {@link IndexWriter} is lost (its tragic exception is set: a
 * corrupt segment read by a merge, a full disk, any fatal error; Lucene has no listener for it) and
 * makes the node give its epoch up, then lets it be elected again once it can lead.
 *
 * <p>Guarantees: the writer is looked at after every failed write, refresh and commit, and on every
 * progress report (about every 100 ms: one volatile read), so a loss is acted on at most one
 * report after it happened, also when nothing writes (for example {@code
 * IndexWriter.onTragicEvent} called by another part of the node); each lost writer is acted on once,
 * in one event of the index's state machine: the node gives up ({@link Candidacy#GAVE_UP}, with
 * the loss in its {@link IndexSnapshot}) and writes stop (the index moves to {@link
 * IndexState#FENCED}) in the same transition, then it resigns its epoch ({@link
 * IndexElection#giveUp}), so the best other member takes over as after a crash, and this node
 * rejoins as a replica of its last commit. It is a candidate again once, as a replica, it completed
 * a copy from the new primary, or after {@link #HOLD_OFF_MILLIS} when no other node took over (a
 * one-node cluster) — in both cases only with its data directory above the free-space floor. This
 * class keeps no state of its own: the loss and the candidacy are the snapshot's. Nothing here
 * waits for the event thread or the election. A refusal names the reason the loss was recorded
 * with; only refusals racing the first event classify the loss themselves (one statfs each).
 */
final class LostWriterWatch {
  /** How long a node that gave its epoch up stays out of elections when no other node takes over. */
  static final long HOLD_OFF_MILLIS = 30_000;
  /** Below the floor plus this much, an I/O failure of the writer counts as a full disk. */
  static final long DISK_FULL_MARGIN = 64L << 20;

  private final RoleSwitch roles;
  private final DiskFloor floor;
  private final Supplier<IndexMetrics> metrics;
  private final NodeLog log;
  private final int nodeId;
  private final String index;

  LostWriterWatch(RoleSwitch roles, DiskFloor floor, Supplier<IndexMetrics> metrics, NodeLog log, int nodeId, String index) {
    this.roles = roles;
    this.floor = floor;
    this.metrics = metrics;
    this.log = log;
    this.nodeId = nodeId;
    this.index = index;
  }

  /** The periodic look: acts on a lost writer, or gives candidacy back when it may. */
  void check() {
    IndexSnapshot s = roles.snapshot();
    Primary p = s.primary();
    if (p != null) {
      Throwable tragic = p.writer().getTragicException();
      if (tragic != null && !s.actedOn(p)) {
        lost(p, tragic);
      }
      return;
    }
    maybeRestoreCandidacy(s);
  }

  /**
   * After an operation on {@code p} failed with {@code failure}: the typed error to raise instead
   * when its writer is lost (acted on here), else null (the failure stands).
   */
  WriterLostException afterFailure(Primary p, String what, Throwable failure) {
    Throwable tragic = p.writer().getTragicException();
    if (tragic == null) {
      return null;
    }
    StepDown why = lost(p, tragic);
    WriterLostException e = refusal(what, why, tragic);
    e.addSuppressed(failure);
    return e;
  }

  /**
   * While this node is out of elections after losing its writer and follows no new primary yet:
   * the refusal for {@code what}; else null.
   */
  WriterLostException pendingRefusal(String what, IndexSnapshot s) {
    if (s.candidacy() != Candidacy.GAVE_UP || s.loss() == null || s.followed() != null) {
      return null;
    }
    return refusal(what, s.loss().why(), s.loss().tragic());
  }

  private WriterLostException refusal(String what, StepDown why, Throwable tragic) {
    return new WriterLostException("node " + nodeId + " cannot " + what + " on " + index + ": its index writer is lost ("
        + why.reason() + ": " + why.message() + "); it gave its epoch up: retry on the next primary", tragic);
  }

  /**
   * Why {@code p}'s writer is lost: as recorded when it was acted on, else classified now, and the
   * state machine told (it acts once per primary, whoever asks).
   */
  private StepDown lost(Primary p, Throwable tragic) {
    IndexSnapshot s = roles.snapshot();
    if (s.actedOn(p)) {
      return s.loss().why();
    }
    StepDown why = new StepDown(classify(tragic), String.valueOf(tragic), System.currentTimeMillis());
    IndexStateMachine machine = roles.machine();
    machine.submit("act on a lost writer", () -> {
      IndexSnapshot now = machine.snapshot();
      if (now.actedOn(p) || now.primary() != p) {
        // Acted on already, or this primary is no longer the index's: its switch closed it.
        return null;
      }
      IndexState next = now.state() == IndexState.LEADING || now.state() == IndexState.HANDING_OFF ? IndexState.FENCED
          : now.state();
      machine.transition(x -> x.gaveUp(IndexSnapshot.WriterLoss.of(p, why, tragic), next),
          "index writer lost: " + why.reason() + ": " + why.message());
      log.error("the index writer is lost ({}): no more writes; giving the epoch up", why.reason(), tragic);
      metrics.get().writerLost(why.reason());
      IndexElection e = roles.election();
      if (e != null) {
        e.giveUp(why);
      }
      return null;
    });
    return why;
  }

  /** The kind of failure, from the exception chain and, for I/O, how much space is left. */
  StepDownReason classify(Throwable tragic) {
    boolean io = false;
    for (Throwable t = tragic; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof CorruptIndexException) {
        return StepDownReason.CORRUPT_INDEX;
      }
      io |= t instanceof IOException;
    }
    if (!io) {
      return StepDownReason.FATAL_ERROR;
    }
    long usable = floor.measureNow();
    return usable >= 0 && usable < floor.floorBytes() + DISK_FULL_MARGIN ? StepDownReason.DISK_FULL : StepDownReason.IO_ERROR;
  }

  private void maybeRestoreCandidacy(IndexSnapshot s) {
    if (s.candidacy() == Candidacy.CANDIDATE || s.state() != IndexState.REPLICATING || floor.isBelow()) {
      return;
    }
    Replica r = s.replica();
    boolean copied = s.followed() != null && r != null && r.stats().lastCopyCompletedMillis() > 0;
    boolean waited = s.loss() == null || System.nanoTime() - s.loss().atNanos() > HOLD_OFF_MILLIS * 1_000_000;
    if (!copied && !waited) {
      return;
    }
    String why = copied ? "copied the new primary's point" : "no other node took over";
    IndexStateMachine machine = roles.machine();
    machine.submit("a candidate again", () -> {
      IndexSnapshot now = machine.snapshot();
      if (now.candidacy() == Candidacy.CANDIDATE || now.state() != IndexState.REPLICATING) {
        return null;
      }
      machine.transition(IndexSnapshot::candidateAgain, why);
      IndexElection e = roles.election();
      if (e != null) {
        e.standingChanged();
      }
      return null;
    });
  }
}
