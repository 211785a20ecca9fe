package io.nrtcluster.stress;

import java.io.Closeable;

/** The run's ZooKeeper ensemble, whichever way its servers run; one server at a time may crash and come back. */
interface ZooKeeperServers extends Closeable {
  String connectString();

  int size();

  /** Crashes server {@code i} (0-based). */
  void kill(int i) throws Exception;

  /** Starts server {@code i} (0-based) again on its data. */
  void restart(int i) throws Exception;
}
