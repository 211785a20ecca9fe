package io.nrtcluster.stress;

/**
 * Where the harness's writes go, decided as a client of the cluster decides it: from the view of
 * who leads (the primary ZooKeeper names, and its generation) alone. Guarantees: a target is left as
 * soon as a view read after the target was chosen names another node, another generation or no
 * primary; a view read before it (stale), or no view at all (ZooKeeper not answering), never moves
 * writes. A write in flight is given up by the same rule, so no write waits out its timeout on a node
 * the view no longer names.
 */
final class WriteRoute {
  /** How often a write waiting for its answer asks the route whether to go on waiting. */
  static final long POLL_MILLIS = 25;

  private WriteRoute() {}

  /**
   * Who ZooKeeper names primary, and at which generation ({@code primaryId} -1: nobody), read at
   * {@code readNanos} ({@link System#nanoTime}, taken before the read was sent).
   */
  record View(int primaryId, long gen, long readNanos) {
    static View none(long readNanos) {
      return new View(-1, -1, readNanos);
    }

    @Override
    public String toString() {
      return primaryId < 0 ? "no primary" : "N" + primaryId + " (generation " + gen + ")";
    }
  }

  /**
   * Why writes to N{@code targetId} leading generation {@code targetGen}, chosen at {@code
   * sinceNanos}, must go elsewhere now by {@code view} (null: none known), or null to go on.
   */
  static String leave(int targetId, long targetGen, long sinceNanos, View view) {
    if (view == null || view.readNanos() - sinceNanos < 0) {
      return null;
    }
    if (view.primaryId() != targetId || view.gen() != targetGen) {
      return "ZooKeeper names " + view + " now, not N" + targetId + " (generation " + targetGen + ")";
    }
    return null;
  }
}
