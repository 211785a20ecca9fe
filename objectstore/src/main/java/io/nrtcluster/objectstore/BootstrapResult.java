package io.nrtcluster.objectstore;

import io.nrtcluster.common.Stable;

/**
 * What {@link NodeRestore#bootstrap} did.
 *
 * @param outcome what happened
 * @param localVersion the version of the local commit found before (-1 for none)
 * @param manifest the manifest restored ({@link Outcome#RESTORED}) or refused ({@link Outcome#FELL_BACK}); null otherwise
 * @param error why the store was not used ({@link Outcome#FELL_BACK}): typed, naming the object; null otherwise
 */
@Stable
public record BootstrapResult(Outcome outcome, long localVersion, ManifestId manifest, Exception error) {
  /** The outcomes of a bootstrap. */
  public enum Outcome {
    /** The newest backup was restored: the node catches up from there. */
    RESTORED,
    /** The local index is at or above the newest backup: left alone. */
    UP_TO_DATE,
    /** The store holds no backup of the index. */
    NO_BACKUP,
    /** The store could not be used (damaged object, unreachable, refused): the local index was left as it was. */
    FELL_BACK
  }
}
