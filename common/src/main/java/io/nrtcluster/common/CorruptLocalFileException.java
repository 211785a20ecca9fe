package io.nrtcluster.common;

import java.util.List;

/**
 * A node holds local index files that failed their checksum and were not copied again from a
 * primary yet ({@link ErrorCode#CORRUPT_LOCAL_FILE}): it must not lead, so it neither ranks in an
 * election nor is promoted by hand without {@code --force}. {@link #files()} names them.
 */
@Stable
public class CorruptLocalFileException extends NrtClusterException {
  private static final long serialVersionUID = 1L;

  private final List<String> files;

  /** Creates one naming the corrupt {@code files} (copied). */
  public CorruptLocalFileException(String message, List<String> files) {
    super(ErrorCode.CORRUPT_LOCAL_FILE, message);
    this.files = List.copyOf(files);
  }

  /** The corrupt files, as named in the node's index directory. */
  public List<String> files() {
    return files;
  }
}
