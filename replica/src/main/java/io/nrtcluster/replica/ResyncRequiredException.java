package io.nrtcluster.replica;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;

/**
 * A new primary's point-in-time reuses a file name of this replica's last commit with different
 * contents (the old primary wrote segments that never reached the new one). Copying over it would
 * corrupt the commit, so the replica must resynchronize the Lucene way: drop the commit, copy, commit.
 */
final class ResyncRequiredException extends NrtClusterException {
  private static final long serialVersionUID = 1L;
  final long primaryGen;

  ResyncRequiredException(long primaryGen, String message) {
    super(ErrorCode.RESYNC_REQUIRED, message);
    this.primaryGen = primaryGen;
  }
}
