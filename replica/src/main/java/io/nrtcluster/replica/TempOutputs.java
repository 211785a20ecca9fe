package io.nrtcluster.replica;

import io.nrtcluster.common.StorageException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The temp files of a replica node's copied files, from their creation for Lucene's {@code
 * CopyOneFile} to the moment our copy takes them: Lucene keeps the output it asked the node for
 * private, and our copy writes to the same one directly ({@link TempFileCopy}).
 *
 * <p>Guarantees: each output is handed over once; its I/O errors, creation included, surface as
 * {@link StorageException}; temp names never repeat within one node.
 */
final class TempOutputs {
  private final StorageFaults faults;
  /** Temp outputs created and not yet taken by their copy (only between the two, so a handful). */
  private final Map<String, LocalFileOutput> created = new ConcurrentHashMap<>();
  private final AtomicLong counter = new AtomicLong();

  TempOutputs(StorageFaults faults) {
    this.faults = faults;
  }

  /**
   * A temp file for copied file {@code prefix} in {@code folder}, written through a {@link
   * ChannelFileOutput}, so received bytes reach the file without a heap copy.
   */
  LocalFileOutput create(Path folder, String prefix, String suffix) throws IOException {
    ChannelFileOutput out;
    try {
      out = ChannelFileOutput.createTemp(folder, prefix, suffix, counter, faults);
    } catch (IOException e) {
      throw new StorageException("creating a temp file for " + prefix + " failed: " + e, e);
    }
    LocalFileOutput local = new LocalFileOutput(out, prefix);
    created.put(local.getName(), local);
    return local;
  }

  /** The output {@link #create} made for {@code tmpName}, handed over once. */
  LocalFileOutput take(String tmpName) {
    LocalFileOutput out = created.remove(tmpName);
    if (out == null) {
      throw new IllegalStateException("no temp output " + tmpName + " was created");
    }
    return out;
  }
}
