package io.nrtcluster.common;

/** Raised when copied bytes do not match the Lucene checksum or length the primary advertised for a file. The partial file is discarded and the copy retried; it is never installed. */
@Stable
public class ChecksumMismatchException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  /** Creates one with {@code message}, which says what failed. */
  public ChecksumMismatchException(String message) {
    super(ErrorCode.CHECKSUM_MISMATCH, message);
  }

  /** Creates one with {@code message}, which says what failed, and the failure that caused it. */
  public ChecksumMismatchException(String message, Throwable cause) {
    super(ErrorCode.CHECKSUM_MISMATCH, message, cause);
  }
}
