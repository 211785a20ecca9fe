package io.nrtcluster.transport;

import io.nrtcluster.common.Internal;

/**
 * Receives the replies of a request that may be answered several times (for example a merge
 * pre-copy: progress keep-alives, then a final result). Called on an event loop: must not block.
 */
@Internal
public interface ReplyListener {
  /** One reply; return true when it was the last. */
  boolean onReply(Message reply);

  /** The connection closed or the request was cancelled before the last reply. */
  void onFailure(Throwable cause);
}
