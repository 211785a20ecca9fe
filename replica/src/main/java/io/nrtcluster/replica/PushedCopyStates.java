package io.nrtcluster.replica;

import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The newest copy-state a primary pushed with an NRT point that no copy has taken yet: one slot,
 * updated without locks by the link's event loop (offers) and the copy that starts (takes). A
 * copy-state the slot gives up unused (replaced by a newer point, or from a connection or generation
 * that is gone) is released at once, so the primary never holds more for this replica than the one
 * it may still use.
 */
final class PushedCopyStates {
  /** A copy-state the primary pushed on {@code connection}; it holds it for us until released. */
  record Pushed(Connection connection, Message.CopyStateReply state) {
    void release() {
      if (connection.isOpen()) {
        connection.request(id -> new Message.ReleaseCopyState(id, state.copyStateId())).exceptionally(t -> null);
      }
    }
  }

  private final AtomicReference<Pushed> slot = new AtomicReference<>();

  /**
   * Keeps {@code p} as the copy-state the next copy starts from; one that it replaces unused (an
   * older point) is released at once, so the primary never holds more than it must for us.
   */
  void offer(Pushed p) {
    Pushed old = slot.getAndUpdate(cur -> cur == null || newer(p, cur) ? p : cur);
    if (old == null) {
      return;
    }
    // The update above decided on exactly this old value: release whichever of the two lost.
    if (newer(p, old)) {
      old.release();
    } else {
      p.release();
    }
  }

  private static boolean newer(Pushed a, Pushed b) {
    Message.CopyStateReply x = a.state();
    Message.CopyStateReply y = b.state();
    return x.primaryGen() > y.primaryGen() || (x.primaryGen() == y.primaryGen() && x.version() > y.version())
        || a.connection() != b.connection();
  }

  /**
   * Takes the pushed copy-state for a copy to point {@code version} of generation {@code gen} or
   * newer, on the live connection {@code c}; null when there is none (the copy asks for one).
   */
  Pushed take(Connection c, long gen, long version) {
    Pushed p = slot.get();
    if (p == null) {
      return null;
    }
    if (p.connection() != c || p.state().primaryGen() != gen || p.state().version() < version) {
      if (p.connection() != c || p.state().primaryGen() < gen) {
        // From a connection or generation that is gone: of no use any more.
        if (slot.compareAndSet(p, null)) {
          p.release();
        }
      }
      return null;
    }
    return slot.compareAndSet(p, null) ? p : null;
  }

  /** Releases a pushed copy-state no newer than {@code version} (the replica already searches it). */
  void dropUpTo(long gen, long version) {
    Pushed p = slot.get();
    if (p != null && p.state().primaryGen() <= gen && p.state().version() <= version && slot.compareAndSet(p, null)) {
      p.release();
    }
  }
}
