package io.nrtcluster.common;

/** Raised when a message carries a primary generation older than the highest this node has seen: a fenced-off (zombie) primary must never be followed. */
@Stable
public class StalePrimaryGenerationException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public StalePrimaryGenerationException(String message) {
    super(ErrorCode.STALE_PRIMARY_GENERATION, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public StalePrimaryGenerationException(String message, Throwable cause) {
    super(ErrorCode.STALE_PRIMARY_GENERATION, message, cause);
  }
}
