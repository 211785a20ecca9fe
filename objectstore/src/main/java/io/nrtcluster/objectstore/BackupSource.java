package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.io.IOException;
import org.apache.lucene.store.Directory;

/**
 * A point handed to {@link BackupService#submit}: where its files are, what they are, and how to let
 * them go. The service calls {@link #close()} exactly once, when the backup finished, failed or was
 * replaced by a newer point, so the caller may hold the files (incRef a {@code CopyState}, keep a
 * commit snapshot) until then and no longer.
 */
@Experimental
public interface BackupSource extends AutoCloseable {
  /** The directory holding the point's files. */
  Directory directory();

  /** The point. */
  BackupPoint point();

  /** Releases the point's files. */
  @Override
  void close() throws IOException;

  /** A source whose release does {@code release} (may be null for nothing). */
  static BackupSource of(Directory directory, BackupPoint point, Runnable release) {
    return new BackupSource() {
      @Override
      public Directory directory() {
        return directory;
      }

      @Override
      public BackupPoint point() {
        return point;
      }

      @Override
      public void close() {
        if (release != null) {
          release.run();
        }
      }
    };
  }
}
