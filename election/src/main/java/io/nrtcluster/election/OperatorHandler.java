package io.nrtcluster.election;

import io.nrtcluster.common.Internal;

/**
 * What a node does with the operator requests an {@link OperatorRequestWatch} hands it: the
 * acting part, without ZooKeeper. Every method but {@link #acceptsHandoff} runs on the watch's own
 * worker thread, one request at a time, and may take long.
 */
@Internal
public interface OperatorHandler {
  /**
   * Whether this node should run the hand-off {@code request} now (it is the writable primary).
   * Called on ZooKeeper's event thread: answer at once, without waiting for anything.
   */
  boolean acceptsHandoff(Handoff request);

  /**
   * Runs the hand-off {@code request} (its status in ZooKeeper already says CATCHING_UP) and returns
   * how it ended: the request {@link Handoff#with with} status HANDED_OFF or FAILED.
   */
  Handoff runHandoff(Handoff request);

  /** Carries out {@code command}, which addresses this node, and says how it went. Never throws. */
  CommandAck execute(OperatorCommand command);
}
