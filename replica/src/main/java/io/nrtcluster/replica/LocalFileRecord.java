package io.nrtcluster.replica;

import io.nrtcluster.common.Internal;
import io.nrtcluster.common.StorageException;
import java.nio.file.Path;
import java.util.List;

/**
 * The replica's durable record of verified and corrupt files, for a node whose primary found one of
 * its own files corrupt on the same data directory.
 *
 * <p>Guarantees: after {@link #markCorrupt} returns, the next replica opened on {@code dataDir}
 * reads that file's whole checksum again before it opens the index (quarantining it when it fails),
 * names it in {@link Replica#corruptFiles()} (so the node ranks in no election) until a
 * point-in-time copied from a primary replaces it, and serves no searcher until then. Must not run
 * while a replica has {@code dataDir} open: that replica's own record would overwrite the mark.
 */
@Internal
public final class LocalFileRecord {
  private LocalFileRecord() {}

  /** Marks {@code fileName} of the index under {@code dataDir} corrupt (durable). */
  public static void markCorrupt(Path dataDir, String fileName) throws StorageException {
    VerifiedFiles.open(dataDir.resolve(FileIntegrity.RECORD_FILE)).markCorrupt(List.of(fileName));
  }
}
