package io.nrtcluster.replica;

import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.IllegalTransitionException;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.replica.Replica.State;
import org.slf4j.Logger;

/**
 * Where one replica is in its lifecycle ({@link State}) and the node it runs there, with one owner
 * for both: each transition is checked against {@link State#TRANSITIONS} and swaps the node in the
 * same step, so no thread sees the replica RUNNING without the node it runs, and the primary
 * generation a resync reopens at is set with the move to RESYNCING. The replica's log is made here
 * because its lines show the generation of the node run now.
 *
 * <p>Guarantees: an illegal transition is refused and logged, never applied; the monitor is held
 * only for the assignments, never across I/O (a node a transition took is closed by the caller,
 * afterwards); every transition wakes the threads waiting in {@link #awaitChange}.
 */
final class ReplicaLifecycle {
  /** The node a transition took from the replica, for the caller to close (null: none ran). */
  record Taken(ReplicatingReplicaNode node) {}

  private final NodeLog log;
  /**
   * Guards the transitions of {@link #state} together with {@link #node} and every write of {@link
   * #resyncGen} (held only for those assignments, never across I/O) and is notified on each
   * transition.
   */
  private final Object monitor = new Object();
  private volatile State state = State.STARTING;
  private volatile ReplicatingReplicaNode node;
  /** The primary generation a resync reopens at. */
  private volatile long resyncGen = -1;

  /** Logs through {@code logger} as {@code name}, with the generation of the node run now, else the highest seen. */
  ReplicaLifecycle(Logger logger, String name, GenerationStore store) {
    this.log = new NodeLog(logger, name, () -> {
      ReplicatingReplicaNode n = node;
      return n == null ? store.highestPrimaryGen() : n.lastPrimaryGen();
    });
  }

  /** The replica's log: every line starts with its identity and the generation it follows. */
  NodeLog log() {
    return log;
  }

  /** Where the replica is now (a snapshot). */
  State state() {
    return state;
  }

  /** The node run now: null before the start opened one and while a resync reopens the index. */
  ReplicatingReplicaNode node() {
    return node;
  }

  /** The primary generation a resync reopens at. */
  long resyncGen() {
    return resyncGen;
  }

  /** STARTING -> RUNNING: the replica runs {@code started}, the node its start opened. */
  void started(ReplicatingReplicaNode started) {
    synchronized (monitor) {
      node = started;
      moveTo(State.RUNNING);
    }
  }

  /**
   * RUNNING -> RESYNCING, to reopen at primary generation {@code gen}; null, and nothing changed,
   * unless it was running.
   */
  Taken resync(long gen) {
    synchronized (monitor) {
      if (state != State.RUNNING) {
        return null;
      }
      moveTo(State.RESYNCING);
      Taken old = new Taken(node);
      node = null;
      resyncGen = gen;
      return old;
    }
  }

  /**
   * RUNNING -> RESYNCING after a corrupt file, to reopen at no older generation than the node ran;
   * a resync under way is joined (nothing taken). Null when it neither runs nor resyncs.
   */
  Taken repair() {
    synchronized (monitor) {
      if (state == State.RUNNING) {
        moveTo(State.RESYNCING);
        ReplicatingReplicaNode old = node;
        node = null;
        resyncGen = Math.max(resyncGen, old.lastPrimaryGen());
        return new Taken(old);
      }
      return state == State.RESYNCING ? new Taken(null) : null;
    }
  }

  /** A resync under way reopens at no older generation than {@code gen}, announced meanwhile. */
  void resyncAtLeast(long gen) {
    // Under the monitor: a repair raises the same generation there, and two unlocked maxima could
    // lose the higher one.
    synchronized (monitor) {
      if (state == State.RESYNCING) {
        resyncGen = Math.max(resyncGen, gen);
      }
    }
  }

  /**
   * RESYNCING -> RUNNING: the replica runs {@code reopened}. False when it is no longer resyncing
   * (closed meanwhile): then the caller closes {@code reopened}.
   */
  boolean reopened(ReplicatingReplicaNode reopened) {
    synchronized (monitor) {
      if (state != State.RESYNCING) {
        return false;
      }
      node = reopened;
      moveTo(State.RUNNING);
      return true;
    }
  }

  /** Any state -> CLOSED: the node run until now, for the caller to close; null when it was closed already. */
  Taken close() {
    synchronized (monitor) {
      if (state == State.CLOSED) {
        return null;
      }
      moveTo(State.CLOSED);
      return new Taken(node);
    }
  }

  /**
   * Waits up to {@code millis} for the next transition, unless the replica moved on since the caller
   * saw it in {@code seen} running {@code seenNode}.
   */
  void awaitChange(State seen, ReplicatingReplicaNode seenNode, long millis) throws InterruptedException {
    synchronized (monitor) {
      if (state == seen && node == seenNode) {
        monitor.wait(millis);
      }
    }
  }

  /** Moves {@link #state} to {@code to}; the caller holds {@link #monitor}. */
  private void moveTo(State to) {
    State from = state;
    try {
      State.TRANSITIONS.check(from, to);
    } catch (IllegalTransitionException e) {
      log.error("{}", e.getMessage());
      throw new IllegalStateException(e.getMessage(), e);
    }
    state = to;
    monitor.notifyAll();
    if (from != State.STARTING || to != State.RUNNING) {
      log.info("replica {} -> {}", from, to);
    }
  }
}
