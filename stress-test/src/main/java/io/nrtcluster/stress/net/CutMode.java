package io.nrtcluster.stress.net;

/** How a {@link NetLab} cut drops the packets of a link. */
public enum CutMode {
  /**
   * Silently, like a lost network: a policy rule in the receiver's namespace drops packets from the
   * sender as they arrive. The sender sees nothing but silence (connects and reads time out), and
   * established connections stall rather than fail.
   */
  DROP,
  /**
   * Loudly: a {@code prohibit} route in the sender's namespace, so its sends to the receiver fail at
   * once (connect: "Permission denied"). Note that a {@code blackhole} route in the sender's namespace
   * fails locally at once too ("Invalid argument"); only {@link #DROP} looks like silence.
   */
  REJECT
}
