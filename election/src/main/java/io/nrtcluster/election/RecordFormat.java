package io.nrtcluster.election;

import java.util.Properties;

/**
 * The format version every record nrtcluster keeps in ZooKeeper carries, and the rule that lets
 * nodes of two releases share a cluster during a rolling upgrade (docs/operations.md, "Rolling
 * upgrades"): a later format only adds fields, a reader ignores the fields it does not know and
 * gives the ones a writer of an earlier format left out their old meaning, so any node reads a
 * record of any format. A change that a reader of the previous format would misread (a field
 * removed, renamed or given another meaning) is not a new format: it takes a new znode.
 *
 * <p>Records written before the field existed carry none and are format 1, which is what this code
 * writes; {@link HostRecord}s always carried one.
 */
final class RecordFormat {
  /** The key of the format field in a {@link io.nrtcluster.common.PropertiesCodec} record. */
  static final String KEY = "format";
  /** The format this code writes. */
  static final int CURRENT = 1;

  private RecordFormat() {}

  static void stamp(Properties p) {
    p.setProperty(KEY, Integer.toString(CURRENT));
  }

  /**
   * The record's format: 1 when it has none (it predates the field).
   *
   * @throws IllegalArgumentException when the field is there but not a format number
   */
  static int of(Properties p) {
    String v = p.getProperty(KEY);
    return v == null ? 1 : parse(v);
  }

  /** As {@link #of}, for a record that always carries its format: none is malformed. */
  static int required(Properties p) {
    String v = p.getProperty(KEY);
    if (v == null) {
      throw new IllegalArgumentException("no " + KEY);
    }
    return parse(v);
  }

  /**
   * A format field's value.
   *
   * @throws IllegalArgumentException when it is not a format number
   */
  static int parse(String v) {
    int format = Integer.parseInt(v.trim());
    if (format < 1) {
      throw new IllegalArgumentException(KEY + " " + format + " is not a format");
    }
    return format;
  }
}
