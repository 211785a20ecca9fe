package io.nrtcluster.stress;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * Bit rot from outside a node's process (stopped or running): flips one bit of one file of the last
 * commit in an index directory and puts the file's timestamps back, as real rot changes none, and
 * tells whether the node has since quarantined that file.
 */
final class DiskCorruptor {
  /** Where the replica moves files that failed verification (its {@code FileIntegrity.QUARANTINE_DIR}). */
  static final String QUARANTINE = "quarantine";

  /** One flipped bit: the file (of the last commit), its length, and the bit's offset. */
  record Flip(String file, long length, long bit) {}

  private DiskCorruptor() {}

  /** The index directory of a chaos node: {@code <node dir>/<index>/index}. */
  static Path indexDir(Path nodeDir, String index) {
    return nodeDir.resolve(index).resolve("index");
  }

  /**
   * Flips one random bit of one random file of {@code indexDir}'s last commit (its segments file
   * included); null when there is no commit yet or its files cannot be listed.
   */
  static Flip flip(Path indexDir, SplittableRandom random) throws IOException {
    return flip(indexDir, random, false);
  }

  /**
   * As {@link #flip(Path, SplittableRandom)}; with {@code largest}, in the commit's largest file: the
   * one a merge replaces last, so that a running node's scrub (not a merge) has to find it.
   */
  static Flip flip(Path indexDir, SplittableRandom random, boolean largest) throws IOException {
    List<String> files;
    try (Directory dir = FSDirectory.open(indexDir)) {
      files = new ArrayList<>(SegmentInfos.readLatestCommit(dir).files(true));
    } catch (IndexNotFoundException | NoSuchFileException e) {
      return null;
    }
    files.sort(null);
    files.removeIf(f -> f.equals("write.lock"));
    if (files.isEmpty()) {
      return null;
    }
    String name = largest ? largestOf(indexDir, files) : files.get(random.nextInt(files.size()));
    Path file = indexDir.resolve(name);
    long length = Files.size(file);
    if (length == 0) {
      return null;
    }
    long bit = random.nextLong(length * 8);
    BasicFileAttributes before = Files.readAttributes(file, BasicFileAttributes.class);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer b = ByteBuffer.allocate(1);
      ch.read(b, bit >>> 3);
      b.flip();
      byte flipped = (byte) (b.get(0) ^ (1 << (int) (bit & 7)));
      ch.write(ByteBuffer.wrap(new byte[] {flipped}), bit >>> 3);
      ch.force(true);
    }
    Files.getFileAttributeView(file, BasicFileAttributeView.class)
        .setTimes(before.lastModifiedTime(), before.lastAccessTime(), before.creationTime());
    return new Flip(name, length, bit);
  }

  private static String largestOf(Path indexDir, List<String> files) throws IOException {
    String best = files.get(0);
    long bestSize = -1;
    for (String f : files) {
      long size = Files.size(indexDir.resolve(f));
      if (size > bestSize) {
        best = f;
        bestSize = size;
      }
    }
    return best;
  }

  /** Whether {@code file} is gone from the index directory (merged away, or replaced by a copy or restore). */
  static boolean gone(Path indexDir, String file) {
    return !Files.exists(indexDir.resolve(file));
  }

  /** Whether the node has moved {@code file} into its quarantine folder (named {@code <file>.<millis>}). */
  static boolean quarantined(Path indexDir, String file) {
    Path q = indexDir.resolveSibling(QUARANTINE);
    if (!Files.isDirectory(q)) {
      return false;
    }
    try (var entries = Files.list(q)) {
      return entries.anyMatch(p -> p.getFileName().toString().startsWith(file + "."));
    } catch (IOException e) {
      return false;
    }
  }
}
