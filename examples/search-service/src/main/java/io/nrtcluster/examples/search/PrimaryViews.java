package io.nrtcluster.examples.search;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.ClusterNode;
import io.nrtcluster.node.RoleListener;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * When this node's view of who leads an index changes, as the library tells it (a {@link
 * RoleListener} of every hosted index): this node follows another primary, leads, or steps down. A
 * forwarded write waits on {@link #nextChange} next to the primary's answer, so that it hears at
 * once when the primary it waits on is replaced, instead of waiting out its timeout.
 *
 * <p>Guarantees: every role change that happens after {@code nextChange(index)} returned completes
 * the future it returned (so a caller that takes the future first and reads the view after misses
 * no change); a future may also complete for a change that leaves the primary as it was (the caller
 * reads the view again). Listeners run on the election's thread: this only completes a future.
 */
final class PrimaryViews implements RoleListener {
  private final Map<String, CompletableFuture<Void>> next = new ConcurrentHashMap<>();

  /** Completes at the next role change of {@code index} on this node. */
  CompletableFuture<Void> nextChange(String index) {
    return next.computeIfAbsent(index, i -> new CompletableFuture<>());
  }

  @Override
  public void onRoleChange(ClusterNode node, Role role, long primaryGen) {
    CompletableFuture<Void> waiting = next.remove(node.index());
    if (waiting != null) {
      waiting.complete(null);
    }
  }
}
