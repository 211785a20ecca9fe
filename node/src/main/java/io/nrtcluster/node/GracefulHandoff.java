package io.nrtcluster.node;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.election.Handoff;
import io.nrtcluster.election.MemberInfo;
import io.nrtcluster.primary.Primary;
import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * An operator's graceful hand-off, run on the primary: stop acknowledging writes (after the last
 * in-flight one), publish a final version, wait until the target searches it, commit, and resign in
 * the target's favour. If the target does not catch up in time, nothing changes: the hand-off ends
 * and writes resume if this node still holds its epoch. A ZooKeeper reconnect while it waits does
 * not resume writes: only the end of the hand-off does ({@link IndexState#HANDING_OFF}).
 */
final class GracefulHandoff {
  private static final long POLL_MILLIS = 50;

  private final ClusterNode node;
  private final NodeLog log;

  GracefulHandoff(ClusterNode node) {
    this.node = node;
    this.log = node.log();
  }

  Handoff run(Handoff request) {
    Primary p;
    try {
      p = node.beginHandoff(request.target());
    } catch (IOException | RuntimeException e) {
      return request.with(Handoff.Status.FAILED, -1, e.toString());
    }
    if (p == null) {
      return request.with(Handoff.Status.FAILED, -1, "this node is not a writable primary");
    }
    log.info("hand-off to node {} requested: writes stopped", request.target());
    long finalVersion = -1;
    String failure;
    try {
      finalVersion = p.refresh();
      long gen = p.primaryGen();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.timeoutMillis());
      while (!targetSearches(request.target(), gen, finalVersion)) {
        if (System.nanoTime() > deadline) {
          break;
        }
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
      }
      if (targetSearches(request.target(), gen, finalVersion)) {
        p.commit();
        node.election().handOff(request.target());
        log.info("handed off to node {} at version {}", request.target(), finalVersion);
        return request.with(Handoff.Status.HANDED_OFF, finalVersion, null);
      }
      failure = "node " + request.target() + " did not reach version " + finalVersion + " within " + request.timeoutMillis() + " ms";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failure = "interrupted";
    } catch (IOException | RuntimeException e) {
      failure = e.toString();
    }
    log.warn("hand-off to node {} failed: {}", request.target(), failure);
    try {
      node.abortHandoff(failure);
    } catch (IOException | RuntimeException e) {
      log.warn("ending the failed hand-off: {}", e.toString());
    }
    return request.with(Handoff.Status.FAILED, finalVersion, failure);
  }

  private boolean targetSearches(int target, long gen, long version) throws IOException {
    // The cache, not a round trip: a ZooKeeper blip must not end the wait (values only grow, so a
    // stale cache only delays the hand-off, never lets it go early).
    for (MemberInfo m : node.election().cachedMembers()) {
      if (m.nodeId() == target) {
        return m.primaryGen() == gen && m.searchingVersion() >= version;
      }
    }
    return false;
  }
}
