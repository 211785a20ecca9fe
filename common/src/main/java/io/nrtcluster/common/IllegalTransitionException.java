package io.nrtcluster.common;

/**
 * Raised when a lifecycle or role state machine is asked for a transition its table does not allow.
 * Always a bug in the caller: the state is left unchanged (never silently overwritten) and the
 * refusal is logged by the state machine that raised it.
 */
@Stable
public class IllegalTransitionException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String from;
  private final String to;

  /** Creates the refusal of {@code from -> to} by the state machine named {@code machine}. */
  public IllegalTransitionException(String machine, Enum<?> from, Enum<?> to) {
    super(ErrorCode.ILLEGAL_TRANSITION, machine + ": illegal transition " + from + " -> " + to);
    this.from = from.name();
    this.to = to.name();
  }

  /** The state the machine was in (and still is). */
  public String from() {
    return from;
  }

  /** The state that was refused. */
  public String to() {
    return to;
  }
}
