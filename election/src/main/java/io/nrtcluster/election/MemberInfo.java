package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;
import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * What a node publishes about itself for one index, in its ephemeral member znode: where it listens,
 * its role, how far its replication has come, and a small map of application metadata (for
 * example the address of the application's own API). The election ranks candidates by {@link
 * #rank}; metadata plays no part in it.
 *
 * <p>Records written before metadata existed decode with an empty map, and readers that do not
 * know metadata ignore it, so nodes of both kinds can share a cluster. The same holds for {@link
 * #integrity()}: a record without it decodes as {@link MemberIntegrity#CLEAN}. A member that is not
 * {@link #eligible()} (a corrupt file it could not replace, or no index open yet) never wins an
 * election on rank, whatever its rank.
 *
 * @param nodeId the node's cluster-unique id
 * @param address {@code host:port} of the node's replication endpoint
 * @param role what the node does now
 * @param primaryGen generation of the point-in-time it searches (or leads)
 * @param searchingVersion version of the point-in-time it searches
 * @param commitVersion version of its last durable commit
 * @param copying whether an NRT copy is running
 * @param lastCopyMillis wall-clock millis of its last completed copy, 0 if none
 * @param metadata the application's metadata, within the bounds of {@link MemberMetadata}; never
 *     null (null in: empty), unmodifiable
 * @param consecutiveCopyFailures NRT copies that failed since its last successful one (0 for a
 *     primary, and in records of nodes that do not report it)
 * @param integrity what it says about its local files and whether it may lead; never null (null in:
 *     {@link MemberIntegrity#CLEAN})
 * @param candidate whether the node may be elected now; false while it recovers from giving its
 *     epoch up ({@link IndexElection#giveUp}); records written before this field existed decode as true
 * @param lastStepDown the last time the node gave its epoch up by itself, or null if it never did
 * @param notWritable why the node does not take writes now, or null when it does; a record written
 *     before this field existed means what its role says ({@link NotWritableReason#impliedBy})
 * @param incarnation names this run of the node's index: a new value each time the node opens it
 *     (a restart, or a reopen), so the in-sync set ({@link InSyncRecord}) never takes a restarted
 *     node, which lost the points it searched but had not committed, for the run that held them; 0
 *     in records of nodes from before it existed
 */
@Experimental
public record MemberInfo(
    int nodeId,
    String address,
    Role role,
    long primaryGen,
    long searchingVersion,
    long commitVersion,
    boolean copying,
    long lastCopyMillis,
    Map<String, String> metadata,
    long consecutiveCopyFailures,
    MemberIntegrity integrity,
    boolean candidate,
    StepDown lastStepDown,
    NotWritableReason notWritable,
    long incarnation) {
  /** Prefix of the metadata keys in the encoded record: a key of its own can never collide with the fixed fields. */
  private static final String METADATA_PREFIX = "meta.";

  public MemberInfo {
    metadata = MemberMetadata.checked("metadata", metadata);
    integrity = integrity == null ? MemberIntegrity.CLEAN : integrity;
  }

  /** A record whose writability is what its role implies ({@link NotWritableReason#impliedBy}). */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis, Map<String, String> metadata, long consecutiveCopyFailures,
      MemberIntegrity integrity, boolean candidate, StepDown lastStepDown) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, NotWritableReason.impliedBy(role), 0);
  }

  /** A record of a node that does not name its incarnation (0). */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis, Map<String, String> metadata, long consecutiveCopyFailures,
      MemberIntegrity integrity, boolean candidate, StepDown lastStepDown, NotWritableReason notWritable) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, notWritable, 0);
  }

  /** A candidate that never stepped down by itself. */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis, Map<String, String> metadata, long consecutiveCopyFailures,
      MemberIntegrity integrity) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, integrity, true, null);
  }

  /** A record with clean local files. */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis, Map<String, String> metadata, long consecutiveCopyFailures) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, MemberIntegrity.CLEAN);
  }

  /** A record with clean local files that reports no copy failures. */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis, Map<String, String> metadata) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata, 0);
  }

  /** A record without application metadata. */
  public MemberInfo(int nodeId, String address, Role role, long primaryGen, long searchingVersion, long commitVersion,
      boolean copying, long lastCopyMillis) {
    this(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, Map.of());
  }

  /**
   * Whether this member may rank in an election: its files allow it ({@link
   * MemberIntegrity#eligible()}) and it is a {@link #candidate()} (not recovering from giving its
   * epoch up).
   */
  public boolean eligible() {
    return integrity.eligible() && candidate;
  }

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

  /** Whether the node takes writes now (it has no {@link #notWritable()} reason). */
  public boolean writable() {
    return notWritable == null;
  }

  /**
   * This record with {@code newRole}; a new role's writability is the least it implies (a primary
   * that just won opens its index before it writes) until the node reports its own.
   */
  public MemberInfo withRole(Role newRole) {
    NotWritableReason w = newRole == role ? notWritable
        : newRole == Role.PRIMARY ? NotWritableReason.PROMOTING : NotWritableReason.impliedBy(newRole);
    return new MemberInfo(nodeId, address, newRole, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, w, incarnation);
  }

  /** This record with {@code newMetadata} (checked as {@link MemberMetadata#checked} does) instead of its own. */
  public MemberInfo withMetadata(Map<String, String> newMetadata) {
    return new MemberInfo(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, newMetadata,
        consecutiveCopyFailures, integrity, candidate, lastStepDown, notWritable, incarnation);
  }

  /** This record with {@code newIntegrity} instead of its own. */
  public MemberInfo withIntegrity(MemberIntegrity newIntegrity) {
    return new MemberInfo(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, newIntegrity, candidate, lastStepDown, notWritable, incarnation);
  }

  /** This record with the given candidacy and last step-down. */
  public MemberInfo withStanding(boolean newCandidate, StepDown newLastStepDown) {
    return new MemberInfo(nodeId, address, role, primaryGen, searchingVersion, commitVersion, copying, lastCopyMillis, metadata,
        consecutiveCopyFailures, integrity, newCandidate, newLastStepDown, notWritable, incarnation);
  }

  byte[] encode() {
    Properties p = new Properties();
    RecordFormat.stamp(p);
    p.setProperty("nodeId", Integer.toString(nodeId));
    p.setProperty("address", address);
    p.setProperty("role", role.name());
    p.setProperty("primaryGen", Long.toString(primaryGen));
    p.setProperty("searchingVersion", Long.toString(searchingVersion));
    p.setProperty("commitVersion", Long.toString(commitVersion));
    p.setProperty("copying", Boolean.toString(copying));
    p.setProperty("lastCopyMillis", Long.toString(lastCopyMillis));
    p.setProperty("consecutiveCopyFailures", Long.toString(consecutiveCopyFailures));
    integrity.encodeInto(p);
    p.setProperty("candidate", Boolean.toString(candidate));
    if (lastStepDown != null) {
      p.setProperty("stepDown.reason", lastStepDown.reason().name());
      p.setProperty("stepDown.message", lastStepDown.message());
      p.setProperty("stepDown.millis", Long.toString(lastStepDown.atMillis()));
    }
    p.setProperty("writable", Boolean.toString(notWritable == null));
    if (notWritable != null) {
      p.setProperty("notWritable", notWritable.name());
    }
    if (incarnation != 0) {
      p.setProperty("incarnation", Long.toString(incarnation));
    }
    metadata.forEach((k, v) -> p.setProperty(METADATA_PREFIX + k, v));
    return PropertiesCodec.encode(p);
  }

  static MemberInfo decode(byte[] data) throws ProtocolException {
    Properties p = PropertiesCodec.decode(data);
    try {
      RecordFormat.of(p);
      String reason = p.getProperty("stepDown.reason");
      StepDown stepDown = reason == null ? null : new StepDown(reason(reason), p.getProperty("stepDown.message"),
          Long.parseLong(p.getProperty("stepDown.millis", "0")));
      Map<String, String> metadata = new HashMap<>();
      for (String key : p.stringPropertyNames()) {
        if (key.startsWith(METADATA_PREFIX)) {
          metadata.put(key.substring(METADATA_PREFIX.length()), p.getProperty(key));
        }
      }
      Role role = Role.valueOf(p.getProperty("role"));
      String writable = p.getProperty("writable");
      // Absent in records of nodes from before it was reported: what the role says.
      NotWritableReason notWritable = writable == null ? NotWritableReason.impliedBy(role)
          : Boolean.parseBoolean(writable) ? null : NotWritableReason.named(p.getProperty("notWritable"));
      return new MemberInfo(
          Integer.parseInt(p.getProperty("nodeId")),
          p.getProperty("address"),
          role,
          Long.parseLong(p.getProperty("primaryGen")),
          Long.parseLong(p.getProperty("searchingVersion")),
          Long.parseLong(p.getProperty("commitVersion")),
          Boolean.parseBoolean(p.getProperty("copying")),
          Long.parseLong(p.getProperty("lastCopyMillis")),
          metadata,
          // Absent in records of nodes from before it was reported.
          Long.parseLong(p.getProperty("consecutiveCopyFailures", "0")),
          MemberIntegrity.decodeFrom(p),
          !"false".equals(p.getProperty("candidate")),
          stepDown,
          notWritable,
          // Absent in records of nodes from before it was reported.
          Long.parseLong(p.getProperty("incarnation", "0")));
    } catch (RuntimeException e) {
      throw new ProtocolException("malformed member data: " + e);
    }
  }

  /** A reason a newer node wrote that this one does not know reads as the most general one. */
  private static StepDownReason reason(String name) {
    for (StepDownReason r : StepDownReason.values()) {
      if (r.name().equals(name)) {
        return r;
      }
    }
    return StepDownReason.FATAL_ERROR;
  }
}
