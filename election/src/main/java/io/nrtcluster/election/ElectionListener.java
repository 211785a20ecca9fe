package io.nrtcluster.election;

import io.nrtcluster.common.Internal;

/**
 * What the election tells the node that runs an index. Called on the election's serial executor
 * (its own thread, or a thread of a host's election pool; never a ZooKeeper event thread), one
 * call at a time, except {@link #fenced()}, which is called at once from the connection-state
 * thread so writes stop without delay.
 */
@Internal
public interface ElectionListener {
  /**
   * This node won epoch {@code primaryGen}. Open the primary with that generation, forcing its
   * version to at least {@code forceVersion}; return once it serves. Throwing gives the win up.
   */
  void becomePrimary(long primaryGen, long forceVersion) throws Exception;

  /** Follow {@code primary} as a replica (also called when it changes). */
  void followPrimary(PrimaryInfo primary) throws Exception;

  /**
   * ZooKeeper contact is suspended or lost while primary: stop acknowledging writes now. Called on
   * Curator's connection thread under the election's own lock (so a later unfence is ordered after
   * it): it must only record or queue the fence, never wait.
   */
  void fenced();

  /** Contact came back and this node still holds its epoch: writes may resume. */
  void unfenced();

  /** This node is no longer primary (its epoch ended): become a replica, dropping unreplicated changes. */
  void stepDown() throws Exception;
}
