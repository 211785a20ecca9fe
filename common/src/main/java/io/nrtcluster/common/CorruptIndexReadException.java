package io.nrtcluster.common;

/**
 * Raised to a search when reading a document failed on bytes that may be corrupt ({@link
 * ErrorCode#CORRUPT_INDEX_READ}): Lucene's {@code CorruptIndexException}, an unexpected runtime
 * error of a codec, or the application's report that a stored value cannot be decoded. {@link
 * #getCause()} is that failure.
 *
 * <p>Retryable: when it is raised, the node has already started checking the whole checksum of
 * every file of {@link #segment()}; a file that fails is quarantined and copied again from the
 * primary (on a replica) or makes the primary step down (a tragic event of its writer), and the
 * node ranks in no election while it holds the file. A retry after a short pause, or on another
 * node, reads intact bytes. When the check finds every file intact, the failure was not corruption
 * on disk; the check is then not repeated for that segment for a while, but the read is still
 * reported with this type.
 */
@Stable
public class CorruptIndexReadException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String segment;

  /**
   * Creates one for a read of segment {@code segment} (null when not known) that failed with {@code cause}.
   */
  public CorruptIndexReadException(String message, String segment, Throwable cause) {
    super(ErrorCode.CORRUPT_INDEX_READ, message, cause);
    this.segment = segment;
  }

  /** The Lucene segment whose document could not be read (for example {@code _3}), or null when not known. */
  public String segment() {
    return segment;
  }
}
