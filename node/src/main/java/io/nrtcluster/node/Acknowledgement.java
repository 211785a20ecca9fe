package io.nrtcluster.node;

import io.nrtcluster.common.Stable;
import java.util.List;

/**
 * What a refresh or commit acknowledged: the version, the guarantee ({@link Durability}) and the
 * replicas known to hold it when the call returned.
 *
 * @param version the version now published (and, for a commit, durable on the primary)
 * @param durability the guarantee the acknowledgement gives
 * @param replicas node ids of the replicas that had installed the version when the call returned:
 *     for {@link Durability#REPLICATED} every in-sync replica (at least {@code minInSyncReplicas});
 *     for {@link Durability#LOCAL} whichever replicas happened to have it already (often none)
 */
@Stable
public record Acknowledgement(long version, Durability durability, List<Integer> replicas) {
  /** Copies {@code replicas}, so the acknowledgement cannot change after it is returned. */
  public Acknowledgement {
    replicas = List.copyOf(replicas);
  }
}
