package io.nrtcluster.stress;

import java.io.IOException;

/**
 * The nodes a fault acts on as the {@link FaultRunner} picks them, and its way of bringing a killed
 * one back: a fault kept in a class of its own picks and restarts nodes exactly as the runner's do.
 */
interface FaultNodes {
  /** The primary ZooKeeper names, waiting (bounded by the recovery timeout) for one. */
  NodeProcess primary() throws IOException;

  /** Live replica number {@code pick} (modulo their number) of the primary. */
  NodeProcess replica(int pick) throws IOException;

  /** Restarts a killed node after {@code millis} (a dead node does not come back at once). */
  void restartAfter(NodeProcess n, long millis) throws IOException, InterruptedException;
}
