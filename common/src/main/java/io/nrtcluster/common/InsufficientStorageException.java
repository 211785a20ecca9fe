package io.nrtcluster.common;

/**
 * Raised to a writer when the primary's data directory has less usable space than the configured
 * floor: the write was refused before it reached Lucene (nothing of it is kept), so a flush or merge
 * never runs the disk full. Writes resume by themselves once space returns above the floor.
 */
@Stable
public class InsufficientStorageException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final String dataDir;
  private final long usableBytes;
  private final long floorBytes;

  /**
   * @param dataDir the data directory short of space (null when received from a remote node)
   * @param usableBytes its usable bytes when last measured, -1 when unknown
   * @param floorBytes the configured floor, -1 when unknown
   */
  public InsufficientStorageException(String message, String dataDir, long usableBytes, long floorBytes) {
    super(ErrorCode.INSUFFICIENT_STORAGE, message);
    this.dataDir = dataDir;
    this.usableBytes = usableBytes;
    this.floorBytes = floorBytes;
  }

  /** The data directory short of space, or null when unknown. */
  public String dataDir() {
    return dataDir;
  }

  /** Its usable bytes when last measured, -1 when unknown. */
  public long usableBytes() {
    return usableBytes;
  }

  /** The configured free-space floor in bytes, -1 when unknown. */
  public long floorBytes() {
    return floorBytes;
  }
}
