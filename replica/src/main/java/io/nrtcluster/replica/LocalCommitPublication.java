package io.nrtcluster.replica;

import java.io.IOException;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.replicator.nrt.Node;
import org.apache.lucene.store.Directory;

/**
 * Whether the local commit a replica opened without copying it holds writes no refresh published.
 *
 * <p>A primary's commit takes every write so far and records the last version it published
 * ({@code VERSION_KEY}), so its own version is above that record when anything followed the last
 * refresh (Lucene's commit also moves the version when nothing did, so every primary commit counts);
 * a replica's commit records the version it searches, its own. Such a commit is published once the
 * generation that made it announces its version or a later one: one generation publishes each
 * version once, and after a commit its next points start at the commit's version. A later generation
 * never publishes that version (it starts above every reserved one); its points are copied as usual.
 */
final class LocalCommitPublication {
  private final long generation;
  private final long version;
  private volatile boolean unpublished;

  private LocalCommitPublication(long generation, long version, boolean unpublished) {
    this.generation = generation;
    this.version = version;
    this.unpublished = unpublished;
  }

  /** Nothing to hold back: the searched point was copied from a primary. */
  static LocalCommitPublication none() {
    return new LocalCommitPublication(-1, -1, false);
  }

  /** Reads the latest commit of {@code dir}. */
  static LocalCommitPublication of(Directory dir) throws IOException {
    SegmentInfos infos;
    try {
      infos = SegmentInfos.readLatestCommit(dir);
    } catch (IndexNotFoundException e) {
      return none();
    }
    String published = infos.getUserData().get(Node.VERSION_KEY);
    String gen = infos.getUserData().get(Node.PRIMARY_GEN_KEY);
    return new LocalCommitPublication(gen == null ? -1 : Long.parseLong(gen), infos.getVersion(),
        published != null && infos.getVersion() > Long.parseLong(published));
  }

  boolean unpublished() {
    return unpublished;
  }

  /** The generation that made the commit, or -1. */
  long generation() {
    return generation;
  }

  long version() {
    return version;
  }

  /** The primary of {@code gen} announced {@code announcedVersion}: true when that publishes the commit now. */
  boolean announced(long gen, long announcedVersion) {
    if (unpublished && gen == generation && announcedVersion >= version) {
      unpublished = false;
      return true;
    }
    return false;
  }
}
