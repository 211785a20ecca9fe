package io.nrtcluster.common;

/**
 * Raised to a writer when the primary's Lucene {@code IndexWriter} closed for good after a tragic
 * event (a corrupt segment read by a merge, a full disk, any fatal I/O error): this node acknowledges
 * no more writes and gives its epoch up, so another node takes over. The message names the cause;
 * {@link #getCause()} is Lucene's tragic exception when raised locally. Retry against the next
 * primary (a write refused here was never acknowledged).
 */
@Stable
public class WriterLostException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates one with {@code message} and Lucene's tragic exception that closed the writer (null when
   * raised remotely).
   */
  public WriterLostException(String message, Throwable tragic) {
    super(ErrorCode.WRITER_LOST, message, tragic);
  }
}
