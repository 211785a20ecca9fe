package io.nrtcluster.stress.net;

import java.io.IOException;

/**
 * A network lab could not be set up, changed or torn down: not root, {@code ip} missing, or a command
 * that failed or hung. The message names the command and what it printed on stderr.
 */
public final class NetLabException extends IOException {
  private static final long serialVersionUID = 1L;

  public NetLabException(String message) {
    super(message);
  }

  public NetLabException(String message, Throwable cause) {
    super(message, cause);
  }
}
