package io.nrtcluster.election;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Internal;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What one host (one process, many indexes) publishes about itself in its ephemeral znode {@link
 * ZkLayout#hostPath}: the indexes whose primary it is. Written by the host whenever one of its
 * indexes gains or loses the primary role, read by every host's elections (to prefer the host
 * that leads fewest) and by the rebalancing.
 *
 * <p>Format: a {@link PropertiesCodec} record with {@code format} (now {@value #FORMAT}), {@code
 * nodeId} and {@code primaries} (index names, comma-separated; no index name holds a comma). A
 * reader ignores fields it does not know, so a later format that only adds fields is read by this
 * one; a record without {@code format} is malformed.
 *
 * @param nodeId the host's node id
 * @param primaries the indexes it leads (or is about to, from the moment it won their epoch),
 *     sorted; never null, unmodifiable
 */
@Internal
public record HostRecord(int nodeId, SortedSet<String> primaries) {
  /** The format this code writes. */
  public static final int FORMAT = RecordFormat.CURRENT;

  public HostRecord {
    Checks.inRange("nodeId", nodeId, 0, 65535);
    TreeSet<String> copy = new TreeSet<>();
    for (String index : primaries == null ? Set.<String>of() : primaries) {
      copy.add(Checks.safeName("primaries", index));
    }
    primaries = Collections.unmodifiableSortedSet(copy);
  }

  /** A host that leads {@code primaries}. */
  public static HostRecord of(int nodeId, Set<String> primaries) {
    return new HostRecord(nodeId, new TreeSet<>(primaries));
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("nodeId", Integer.toString(nodeId));
    p.setProperty("primaries", String.join(",", primaries));
    return PropertiesCodec.encode(p);
  }

  static HostRecord decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.required(p);
      String list = p.getProperty("primaries", "");
      return new HostRecord(Integer.parseInt(p.getProperty("nodeId")),
          new TreeSet<>(list.isEmpty() ? List.of() : Arrays.asList(list.split(","))));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed host record: " + e);
    }
  }
}
