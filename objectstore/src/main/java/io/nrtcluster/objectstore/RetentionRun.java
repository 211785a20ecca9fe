package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import java.util.Properties;

/**
 * The record of an index's last retention sweep, kept in the store beside its backups ({@link
 * StoreLayout#retentionRecordKey()}): who swept (node and primary generation), when by that node's
 * clock, and what it did. Whichever node leads the index reads it to decide whether a sweep is due,
 * so retention runs wherever the primary is; {@code nrt backup status} shows it.
 *
 * <p>The times are the sweeping node's wall clock, and the next primary compares them with its own:
 * clocks that disagree move the schedule by their difference, never the safety of a sweep (which
 * does not depend on when it runs, see {@link RetentionSweeper}).
 *
 * @param node the node id that swept
 * @param primaryGen the primary generation it led with
 * @param started when the sweep began
 * @param finished when it ended
 * @param kept manifests kept
 * @param deletedManifests manifests deleted
 * @param deletedFiles files deleted
 * @param deletedBytes their bytes
 * @param complete false when the sweep stopped at its lease (the next one goes on)
 */
@Experimental
public record RetentionRun(int node, long primaryGen, Instant started, Instant finished, int kept,
    int deletedManifests, int deletedFiles, long deletedBytes, boolean complete) {
  /** The record's format, written in it; a reader refuses others. */
  static final int FORMAT = 1;

  public RetentionRun {
    Checks.notNull("started", started);
    Checks.notNull("finished", finished);
    Checks.inRange("kept", kept, 0, Integer.MAX_VALUE);
    Checks.inRange("deletedManifests", deletedManifests, 0, Integer.MAX_VALUE);
    Checks.inRange("deletedFiles", deletedFiles, 0, Integer.MAX_VALUE);
    Checks.inRange("deletedBytes", deletedBytes, 0, Long.MAX_VALUE);
  }

  /** The record of {@code result}, swept by {@code node} leading with {@code primaryGen}. */
  static RetentionRun of(int node, long primaryGen, Instant started, Instant finished, SweepResult result) {
    return new RetentionRun(node, primaryGen, started, finished, result.kept().size(), result.deletedManifests().size(),
        result.filesDeleted(), result.bytesDeleted(), result.complete());
  }

  /** The index's last run as recorded in the store, if any sweep recorded one. */
  public static Optional<RetentionRun> read(BlobStore store, StoreLayout layout) throws IOException {
    String key = layout.retentionRecordKey();
    Optional<byte[]> bytes = store.get(key);
    return bytes.isEmpty() ? Optional.empty() : Optional.of(decode(key, bytes.get()));
  }

  /** Records this run as the index's last. */
  void write(BlobStore store, StoreLayout layout) throws IOException {
    store.put(layout.retentionRecordKey(), encode());
  }

  byte[] encode() {
    Properties p = new Properties();
    p.setProperty("format", Integer.toString(FORMAT));
    p.setProperty("node", Integer.toString(node));
    p.setProperty("primaryGen", Long.toString(primaryGen));
    p.setProperty("started", started.toString());
    p.setProperty("finished", finished.toString());
    p.setProperty("kept", Integer.toString(kept));
    p.setProperty("deletedManifests", Integer.toString(deletedManifests));
    p.setProperty("deletedFiles", Integer.toString(deletedFiles));
    p.setProperty("deletedBytes", Long.toString(deletedBytes));
    p.setProperty("complete", Boolean.toString(complete));
    StringWriter w = new StringWriter();
    try {
      p.store(w, "the last retention sweep of this index");
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not fail
    }
    return w.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses a record.
   *
   * @throws CorruptBackupException it is not a record of this format (named)
   */
  static RetentionRun decode(String key, byte[] bytes) throws CorruptBackupException {
    Properties p = new Properties();
    try {
      p.load(new StringReader(new String(bytes, StandardCharsets.UTF_8)));
      if (!Integer.toString(FORMAT).equals(p.getProperty("format"))) {
        throw new IllegalArgumentException("format " + p.getProperty("format") + ", expected " + FORMAT);
      }
      return new RetentionRun(Integer.parseInt(required(p, "node")), Long.parseLong(required(p, "primaryGen")),
          Instant.parse(required(p, "started")), Instant.parse(required(p, "finished")),
          Integer.parseInt(required(p, "kept")), Integer.parseInt(required(p, "deletedManifests")),
          Integer.parseInt(required(p, "deletedFiles")), Long.parseLong(required(p, "deletedBytes")),
          Boolean.parseBoolean(required(p, "complete")));
    } catch (IOException | RuntimeException e) {
      throw new CorruptBackupException(key, "retention record " + key + " does not parse: " + e.getMessage(), e);
    }
  }

  private static String required(Properties p, String name) {
    String v = p.getProperty(name);
    if (v == null) {
      throw new IllegalArgumentException("no " + name);
    }
    return v;
  }
}
