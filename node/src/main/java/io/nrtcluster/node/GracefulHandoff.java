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
 * the target's favour. If the target does not catch up in time, writes resume and nothing changes.
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
    Primary p = node.stopWritesForHandoff();
    if (p == null) {
      return request.with(Handoff.Status.FAILED, -1, "this node is not a writable primary");
    }
    log.info("hand-off to node {} requested: writes stopped", request.target());
    long finalVersion = -1;
    try {
      finalVersion = p.refresh();
      long gen = p.primaryGen();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(request.timeoutMillis());
      while (!targetSearches(request.target(), gen, finalVersion)) {
        if (System.nanoTime() > deadline) {
          node.resumeWritesAfterHandoff();
          log.warn("hand-off to node {} failed: it did not reach version {} within {} ms; writes resume",
              request.target(), finalVersion, request.timeoutMillis());
          return request.with(Handoff.Status.FAILED, finalVersion, "node " + request.target() + " did not reach version "
              + finalVersion + " within " + request.timeoutMillis() + " ms");
        }
        TimeUnit.MILLISECONDS.sleep(POLL_MILLIS);
      }
      p.commit();
      node.election().handOff(request.target());
      log.info("handed off to node {} at version {}", request.target(), finalVersion);
      return request.with(Handoff.Status.HANDED_OFF, finalVersion, null);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      node.resumeWritesAfterHandoff();
      return request.with(Handoff.Status.FAILED, finalVersion, "interrupted");
    } catch (IOException | RuntimeException e) {
      node.resumeWritesAfterHandoff();
      return request.with(Handoff.Status.FAILED, finalVersion, e.toString());
    }
  }

  private boolean targetSearches(int target, long gen, long version) throws IOException {
    for (MemberInfo m : node.election().members()) {
      if (m.nodeId() == target) {
        return m.primaryGen() == gen && m.searchingVersion() >= version;
      }
    }
    return false;
  }
}
