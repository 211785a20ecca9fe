package io.nrtcluster.node;

import io.nrtcluster.common.Durations;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.replica.PrimaryContact;
import io.nrtcluster.replica.Replica;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * This node's failure detector for the primary it follows: turns the replica's last contact with
 * its primary ({@link Replica#lastPrimaryContact()}, kept fresh by heartbeats) into a suspicion the
 * election records ({@link IndexElection#suspect}) or withdraws.
 *
 * <p>Guarantees: a suspicion names the followed primary's generation and is recorded only once
 * this replica has reached that very primary (node id and generation of its handshake) since it
 * began following it and has then heard nothing from it for {@code suspicionDelay}; so a primary
 * still opening its index, or one this node never reached (a partition between this node and a
 * new primary), is never suspected by it, and a 2-node partition cannot flap. A suspicion is
 * withdrawn as soon as the primary answers again, or when this node no longer follows it (it
 * follows another, leads, or closes). Silence across a stall of this node's own (a look that
 * comes more than half the delay, at least 300 ms, after the one before: a collection, a starved
 * CPU) counts again from the stall's end ({@link SilenceWindow}), since the primary's answers may
 * be waiting unread in this node's socket, unless a connection attempt to it was refused since the
 * last contact (nothing listens there: no answer can be waiting). Runs on the caller's thread (the node's periodic
 * report), reads one snapshot and never waits: the election writes to ZooKeeper on its own thread.
 */
final class PrimarySuspicion {
  private final RoleSwitch roles;
  private final long delayNanos;
  private final LongSupplier clock;
  private final SilenceWindow window;
  private PrimaryInfo tracking;
  private long trackingSince;
  private boolean reached;
  private boolean suspected;

  PrimarySuspicion(RoleSwitch roles, Duration suspicionDelay, LongSupplier nanoClock) {
    this.roles = roles;
    this.delayNanos = suspicionDelay.toNanos();
    this.clock = nanoClock;
    this.window = new SilenceWindow(Math.max(Duration.ofMillis(300).toNanos(), delayNanos / 2));
  }

  /** Whether this node holds a suspicion now (as far as this detector asked for one). */
  synchronized boolean suspecting() {
    return suspected;
  }

  /** One look: suspect, withdraw, or nothing. */
  synchronized void check() {
    IndexElection election = roles.election();
    if (election == null || delayNanos == 0) {
      return;
    }
    IndexSnapshot s = roles.snapshot();
    PrimaryInfo followed = s.state() == IndexState.REPLICATING ? s.followed() : null;
    Replica r = s.replica();
    long now = clock.getAsLong();
    if (followed == null || r == null) {
      tracking = null;
      withdraw(election, "no longer following that primary");
      return;
    }
    if (!followed.equals(tracking)) {
      withdraw(election, "following primary " + followed.nodeId() + " of epoch " + followed.primaryGen() + " now");
      tracking = followed;
      trackingSince = now;
      reached = false;
    }
    PrimaryContact c = r.lastPrimaryContact();
    boolean ofThisPrimary = c != null && c.nodeId() == followed.nodeId() && c.primaryGen() == followed.primaryGen();
    long lastHeard = trackingSince;
    if (ofThisPrimary) {
      reached = true;
      lastHeard = Math.max(trackingSince, c.atNanos());
    }
    long silent = now - window.countFrom(now, lastHeard, r.lastPrimaryRefusalNanos());
    if (reached && silent >= delayNanos) {
      if (!suspected) {
        suspected = true;
        election.suspect(followed, "(nothing heard from it for " + Durations.format(Duration.ofNanos(silent)) + ")");
      }
    } else if (suspected) {
      withdraw(election, "primary " + followed.nodeId() + " answers again");
    }
  }

  private void withdraw(IndexElection election, String why) {
    if (suspected) {
      suspected = false;
      election.withdrawSuspicion(why);
    }
  }
}
