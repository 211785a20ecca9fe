package io.nrtcluster.election;

import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.Properties;

/**
 * What a node publishes about itself for one index, in its ephemeral member znode: where it listens,
 * its role, and how far its replication has come. The election ranks candidates by {@link #rank}.
 *
 * @param nodeId the node's cluster-unique id
 * @param address {@code host:port} of the node's replication endpoint
 * @param role what the node does now
 * @param primaryGen generation of the point-in-time it searches (or leads)
 * @param searchingVersion version of the point-in-time it searches
 * @param commitVersion version of its last durable commit
 * @param copying whether an NRT copy is running
 * @param lastCopyMillis wall-clock millis of its last completed copy, 0 if none
 */
public record MemberInfo(
    int nodeId,
    String address,
    Role role,
    long primaryGen,
    long searchingVersion,
    long commitVersion,
    boolean copying,
    long lastCopyMillis) {

  /**
   * Election order: higher primary generation first, then higher searching version, then higher
   * commit version, then higher node id (a deterministic tie-break), as in Lucene's own stress test.
   */
  public static int rank(MemberInfo a, MemberInfo b) {
    int c = Long.compare(a.primaryGen, b.primaryGen);
    if (c == 0) {
      c = Long.compare(a.searchingVersion, b.searchingVersion);
    }
    if (c == 0) {
      c = Long.compare(a.commitVersion, b.commitVersion);
    }
    if (c == 0) {
      c = Integer.compare(a.nodeId, b.nodeId);
    }
    return c;
  }

  public MemberInfo withRole(Role newRole) {
    return new MemberInfo(nodeId, address, newRole, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis);
  }

  byte[] encode() {
    Properties p = new Properties();
    p.setProperty("nodeId", Integer.toString(nodeId));
    p.setProperty("address", address);
    p.setProperty("role", role.name());
    p.setProperty("primaryGen", Long.toString(primaryGen));
    p.setProperty("searchingVersion", Long.toString(searchingVersion));
    p.setProperty("commitVersion", Long.toString(commitVersion));
    p.setProperty("copying", Boolean.toString(copying));
    p.setProperty("lastCopyMillis", Long.toString(lastCopyMillis));
    return PropertiesCodec.encode(p);
  }

  static MemberInfo decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      return new MemberInfo(
          Integer.parseInt(p.getProperty("nodeId")),
          p.getProperty("address"),
          Role.valueOf(p.getProperty("role")),
          Long.parseLong(p.getProperty("primaryGen")),
          Long.parseLong(p.getProperty("searchingVersion")),
          Long.parseLong(p.getProperty("commitVersion")),
          Boolean.parseBoolean(p.getProperty("copying")),
          Long.parseLong(p.getProperty("lastCopyMillis")));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed member data: " + e);
    }
  }
}
