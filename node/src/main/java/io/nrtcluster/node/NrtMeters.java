package io.nrtcluster.node;

import io.nrtcluster.common.Experimental;

/**
 * Names of the meters an {@link NrtHost} started with a Micrometer {@code MeterRegistry} registers,
 * one set per open index, tagged {@value #TAG_INDEX} (the index name) and {@value #TAG_NODE} (the
 * node id). Every meter exists in every role: a replica's primary-side meters and a primary's
 * replica-side meters simply stay still, so a node that changes role keeps one time series per
 * meter. Closing the index removes its meters from the registry.
 *
 * <p>Prometheus names follow Micrometer's conventions: dots become underscores, counters get
 * {@code _total}, timers and time gauges are exported in seconds ({@code _seconds},
 * {@code _seconds_count}, {@code _seconds_sum}, {@code _seconds_max}).
 */
@Experimental
public final class NrtMeters {
  /** Tag: the index (shard) name. */
  public static final String TAG_INDEX = "index";
  /** Tag: the node id ({@link HostConfig#nodeId()}). */
  public static final String TAG_NODE = "node";
  /** Tag: the replica's node id, on the primary's per-replica meters. */
  public static final String TAG_REPLICA = "replica";

  /** Gauge: the primary generation (epoch) this node leads or follows, -1 while it knows none. */
  public static final String PRIMARY_GENERATION = "nrt.primary.generation";
  /** Gauge: 1 while this node is the index's primary, else 0. Summed per index it must be 1. */
  public static final String PRIMARY = "nrt.primary";
  /**
   * Counter: primary changes this node lived through, automatic failovers and promotions alike: the
   * generation it leads or follows moved to a newer one after it had known an older one.
   */
  public static final String FAILOVERS = "nrt.failovers";
  /**
   * Counter: times this node's primary lost its index writer (Lucene's tragic event) and gave its
   * epoch up, tagged {@value #TAG_REASON} with the {@code StepDownReason}.
   */
  public static final String WRITER_LOST = "nrt.primary.writer.lost";
  /** Counter: writes the primary refused because its data directory was below the free-space floor. */
  public static final String WRITES_REFUSED_STORAGE = "nrt.primary.writes.refused.storage";
  /** Timer: each refresh on the primary (flush, new reader, publication in ZooKeeper). */
  public static final String REFRESH = "nrt.refresh";
  /**
   * Timer: each merge pre-copy on the primary, from its start until the last replica finished or
   * was given up (the time a merged segment waits before the primary installs it).
   */
  public static final String MERGE_PRECOPY = "nrt.merge.precopy";

  /** Counter (bytes): file bytes this node received as a replica, failed attempts included. */
  public static final String COPY_BYTES = "nrt.copy.bytes";
  /** Counter: files this node received completely and verified as a replica. */
  public static final String COPY_FILES = "nrt.copy.files";
  /** Counter: NRT copies that failed on this replica (it retries; its last searcher keeps serving). */
  public static final String COPY_FAILURES = "nrt.copy.failures";
  /**
   * Counter, tagged {@link #TAG_REASON}: the NRT copies of {@link #COPY_FAILURES} by why they failed
   * ({@code checksum_mismatch}, {@code connection_lost}, {@code storage}, {@code other}).
   */
  public static final String COPY_FAILURES_BY_REASON = "nrt.copy.failures.reason";
  /** Tag of {@link #COPY_FAILURES_BY_REASON} (why a copy failed) and {@link #WRITER_LOST} (the {@code StepDownReason}). */
  public static final String TAG_REASON = "reason";
  /** Gauge: NRT copies that failed on this replica since its last successful one (0 on a primary). */
  public static final String CONSECUTIVE_COPY_FAILURES = "nrt.copy.failures.consecutive";
  /**
   * Counter, tagged {@link #TAG_VERDICT} ({@code corrupt} or {@code intact}): files this replica
   * reported to its primary after repeated checksum failures, by what the primary found.
   */
  public static final String FILE_VERDICTS = "nrt.copy.file.verdicts";
  /** Tag of {@link #FILE_VERDICTS}. */
  public static final String TAG_VERDICT = "verdict";
  /** Counter: files whose bytes did not match the primary's checksum or length (each refetched). */
  public static final String CHECKSUM_MISMATCHES = "nrt.copy.checksum.mismatches";
  /**
   * Counter: writes to this replica's local storage that failed (disk full, I/O errors, failed fsyncs
   * or renames); each failed a copy or commit cleanly, and the replica kept its last good searcher.
   */
  public static final String STORAGE_FAILURES = "nrt.replica.storage.failures";
  /** Counter: times this replica threw its local commit away to copy a new primary afresh. */
  public static final String RESYNCS = "nrt.replica.resyncs";
  /** Counter: NRT points, copy-states or primaries this replica refused for a stale generation. */
  public static final String STALE_GENERATIONS = "nrt.replica.stale.generations";
  /**
   * Counter: local index files found corrupt, tagged {@value #TAG_FOUND_BY} ({@code start}: the
   * check before the index opens; {@code scrub}: the background scrub; {@code read}: the check after
   * a failed read, in either role: a replica quarantines the file, a primary steps down).
   */
  public static final String CORRUPT_FILES_FOUND = "nrt.replica.corrupt.files.found";
  /**
   * Counter: background scrub passes that ended early on a failure other than a corrupt or vanished
   * file (an I/O error, a bug); the next pass starts on schedule, and the node's log names the first
   * failure of each kind at WARN.
   */
  public static final String SCRUB_FAILURES = "nrt.scrub.failures";
  /**
   * Gauge: on the leading primary, the replicas of the index's in-sync set (those that hold every
   * replicated acknowledgement); NaN on every other node. Below {@code minInSyncReplicas}, replicated
   * refreshes fail with {@code NotEnoughReplicasException}.
   */
  public static final String IN_SYNC_REPLICAS = "nrt.insync.replicas";
  /**
   * Counter, tagged {@link #TAG_REASON} ({@code OutOfSyncReason}: {@code LAGGED}, {@code RESTARTED}):
   * replicas this node, as the leading primary, removed from the in-sync set.
   */
  public static final String IN_SYNC_DEPARTURES = "nrt.insync.departures";
  /** Tag of {@link #CORRUPT_FILES_FOUND}: {@code start}, {@code scrub} or {@code read}. */
  public static final String TAG_FOUND_BY = "found_by";
  /**
   * Counter: reads of a document that failed on possibly corrupt bytes (a codec's error in {@code
   * ClusterNode.storedFields}, or the application's {@code ClusterNode.reportUnreadable}); each
   * raised {@code CorruptIndexReadException} and had its segment checked (at most once a minute).
   */
  public static final String UNREADABLE_READS = "nrt.search.unreadable";
  /**
   * Gauge: corrupt local files not yet replaced by a copy from a primary; while above 0 the node
   * neither ranks in an election nor is promoted without force.
   */
  public static final String CORRUPT_FILES = "nrt.replica.corrupt.files";
  /** Gauge: files the current replica moved into its quarantine folder since it opened. */
  public static final String QUARANTINED_FILES = "nrt.replica.quarantined.files";
  /** Gauge: 1 while this node may rank in an election (a verified index open, no corrupt file), else 0. */
  public static final String ELIGIBLE = "nrt.election.eligible";

  /**
   * Gauge: versions this replica searches behind the newest version its primary announced; 0 when
   * caught up and on the primary.
   */
  public static final String LAG_VERSIONS = "nrt.replication.lag.versions";
  /**
   * Time gauge: how long ago this replica heard of the oldest announced version it does not search
   * yet (the staleness of its searches, on its own clock); 0 when caught up and on the primary.
   */
  public static final String LAG = "nrt.replication.lag";
  /**
   * Timer: for each new version a replica starts searching, the time since it heard of the oldest
   * announced version that install covers (announcement to searchable, per refresh).
   */
  public static final String REPLICATION_DELAY = "nrt.replication.delay";

  /**
   * Gauge: the node this replica copies file bytes from (the copy tree's parent), -1 for the
   * primary (and on a primary).
   */
  public static final String COPY_SOURCE = "nrt.replica.copy.source";

  /** Counter: file bytes this replica copied from a peer replica instead of the primary. */
  public static final String BYTES_FROM_PEERS = "nrt.replica.bytes.from.peers";

  /** Counter: files a parent replica could not serve whole and intact, then copied from the primary. */
  public static final String PEER_FALLBACKS = "nrt.replica.peer.fallbacks";

  /**
   * Gauge on the primary, one per replica (tag {@value #TAG_REPLICA}): versions the replica
   * searches behind the primary's published version, from the replica's member report in ZooKeeper
   * (so it trails by the report interval, about 100 ms). It also shows a replica cut off from the
   * primary, which its own {@link #LAG_VERSIONS} cannot.
   */
  public static final String REPLICA_LAG_VERSIONS = "nrt.replica.lag.versions";
  /**
   * Time gauge on the primary, one per replica: how long ago the primary published the oldest
   * version the replica (by its member report) does not search yet; 0 when caught up.
   */
  public static final String REPLICA_LAG = "nrt.replica.lag";

  /**
   * Counter, one per host (tagged {@value #TAG_NODE} only, not by index; registered while the host
   * runs): primaries this host handed off by itself to even out the primaries per host ({@link
   * HostConfig#rebalance}), counted when the hand-off completed.
   */
  public static final String REBALANCE_HANDOFFS = "nrt.rebalance.handoffs";
  /** Bytes the host's transport handed to its sockets (every index, handshakes and pings included), tagged with the node. */
  public static final String TRANSPORT_BYTES_SENT = "nrt.transport.bytes.sent";
  /** Bytes the host's transport read from its sockets, tagged with the node. */
  public static final String TRANSPORT_BYTES_RECEIVED = "nrt.transport.bytes.received";

  private NrtMeters() {}
}
