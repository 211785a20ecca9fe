package io.nrtcluster.node;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.BaseUnits;
import io.nrtcluster.election.InSyncRecord;
import io.nrtcluster.election.IndexElection;
import io.nrtcluster.election.OutOfSyncReason;
import io.nrtcluster.election.Role;
import io.nrtcluster.election.StepDownReason;
import io.nrtcluster.primary.PreCopyResult;
import io.nrtcluster.primary.Primary;
import io.nrtcluster.primary.PrimaryObserver;
import io.nrtcluster.replica.CopyFailureReason;
import io.nrtcluster.replica.Replica;
import io.nrtcluster.replica.ReplicaObserver;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The meters of one index on one node ({@link NrtMeters}), registered once when the index opens and
 * fed by whichever {@link io.nrtcluster.primary.Primary} or {@link Replica} the node runs at the
 * moment, so they follow role changes. Gauges read the {@link ClusterNode} through Micrometer's weak
 * reference and look up its current primary or replica at each reading: no meter holds a closed
 * primary or replica.
 */
final class MicrometerIndexMetrics implements IndexMetrics, ReplicaObserver, PrimaryObserver {
  private final MeterRegistry registry;
  private final List<Meter> meters = new ArrayList<>();
  private final AtomicLong lastGeneration = new AtomicLong(-1);
  private final Counter failovers;
  private final Timer refresh;
  private final Timer preCopy;
  private final Counter bytes;
  private final Counter files;
  private final Counter failures;
  private final Counter mismatches;
  private final Map<CopyFailureReason, Counter> failuresByReason = new EnumMap<>(CopyFailureReason.class);
  private final Counter primaryCorrupt;
  private final Counter primaryIntact;
  private final Counter resyncs;
  private final Counter storageFailures;
  private final Counter staleGenerations;
  private final Counter corruptAtStart;
  private final Counter corruptByScrub;
  private final Counter corruptByRead;
  private final Counter unreadableReads;
  private final Counter scrubFailures;
  private final Timer delay;
  private final Tags tags;
  private final Counter refusedForSpace;
  private final ReplicaLagMeters replicaLag;
  private final int nodeId;
  private final Map<OutOfSyncReason, Counter> departures = new EnumMap<>(OutOfSyncReason.class);
  /** The epoch and departure times {@link #sample} last saw (sampled on one thread at a time). */
  private long departuresEpoch = -1;
  private final Map<Integer, Long> departuresSeen = new HashMap<>();

  MicrometerIndexMetrics(MeterRegistry registry, ClusterNode node, int nodeId, String index) {
    this.registry = registry;
    this.nodeId = nodeId;
    Tags tags = Tags.of(NrtMeters.TAG_INDEX, index, NrtMeters.TAG_NODE, Integer.toString(nodeId));
    this.tags = tags;
    refusedForSpace = add(Counter.builder(NrtMeters.WRITES_REFUSED_STORAGE).tags(tags)
        .description("writes refused below the data directory's free-space floor").register(registry));
    add(Gauge.builder(NrtMeters.PRIMARY_GENERATION, node, ClusterNode::primaryGen).tags(tags)
        .description("primary generation (epoch) this node leads or follows, -1 when none").register(registry));
    add(Gauge.builder(NrtMeters.PRIMARY, node, n -> n.role() == Role.PRIMARY ? 1 : 0).tags(tags)
        .description("1 while this node is the index's primary").register(registry));
    failovers = add(Counter.builder(NrtMeters.FAILOVERS).tags(tags)
        .description("primary changes this node lived through (failovers and promotions)").register(registry));
    refresh = add(Timer.builder(NrtMeters.REFRESH).tags(tags)
        .description("refreshes on the primary: flush, new reader, publication").register(registry));
    preCopy = add(Timer.builder(NrtMeters.MERGE_PRECOPY).tags(tags)
        .description("merge pre-copies on the primary until every replica finished or was given up").register(registry));
    bytes = add(Counter.builder(NrtMeters.COPY_BYTES).baseUnit(BaseUnits.BYTES).tags(tags)
        .description("file bytes received as a replica").register(registry));
    files = add(Counter.builder(NrtMeters.COPY_FILES).baseUnit(BaseUnits.FILES).tags(tags)
        .description("files received and verified as a replica").register(registry));
    failures = add(Counter.builder(NrtMeters.COPY_FAILURES).tags(tags)
        .description("NRT copies that failed (retried)").register(registry));
    for (CopyFailureReason reason : CopyFailureReason.values()) {
      failuresByReason.put(reason, add(Counter.builder(NrtMeters.COPY_FAILURES_BY_REASON).tags(tags)
          .tag(NrtMeters.TAG_REASON, reason.name().toLowerCase(Locale.ROOT))
          .description("NRT copies that failed, by reason").register(registry)));
    }
    add(Gauge.builder(NrtMeters.CONSECUTIVE_COPY_FAILURES, node, MicrometerIndexMetrics::consecutiveCopyFailures).tags(tags)
        .description("NRT copies failed since the last successful one (stuck on the last good searcher while it rises)")
        .register(registry));
    primaryCorrupt = add(Counter.builder(NrtMeters.FILE_VERDICTS).tags(tags).tag(NrtMeters.TAG_VERDICT, "corrupt")
        .description("files reported to the primary after repeated checksum failures, by its verdict").register(registry));
    primaryIntact = add(Counter.builder(NrtMeters.FILE_VERDICTS).tags(tags).tag(NrtMeters.TAG_VERDICT, "intact")
        .description("files reported to the primary after repeated checksum failures, by its verdict").register(registry));
    mismatches = add(Counter.builder(NrtMeters.CHECKSUM_MISMATCHES).tags(tags)
        .description("files whose bytes did not match the primary's checksum or length (refetched)").register(registry));
    storageFailures = add(Counter.builder(NrtMeters.STORAGE_FAILURES).tags(tags)
        .description("copies or commits that failed on local storage (the last good searcher kept serving)").register(registry));
    resyncs = add(Counter.builder(NrtMeters.RESYNCS).tags(tags)
        .description("times the replica dropped its commit to copy a new primary afresh").register(registry));
    staleGenerations = add(Counter.builder(NrtMeters.STALE_GENERATIONS).tags(tags)
        .description("NRT points, copy-states or primaries refused for a stale generation").register(registry));
    corruptAtStart = add(Counter.builder(NrtMeters.CORRUPT_FILES_FOUND).tags(tags).tag(NrtMeters.TAG_FOUND_BY, "start")
        .description("local files found corrupt and quarantined").register(registry));
    corruptByScrub = add(Counter.builder(NrtMeters.CORRUPT_FILES_FOUND).tags(tags).tag(NrtMeters.TAG_FOUND_BY, "scrub")
        .description("local files found corrupt and quarantined").register(registry));
    corruptByRead = add(Counter.builder(NrtMeters.CORRUPT_FILES_FOUND).tags(tags).tag(NrtMeters.TAG_FOUND_BY, "read")
        .description("local files found corrupt and quarantined").register(registry));
    unreadableReads = add(Counter.builder(NrtMeters.UNREADABLE_READS).tags(tags)
        .description("document reads that failed on possibly corrupt bytes (each had its segment checked)").register(registry));
    scrubFailures = add(Counter.builder(NrtMeters.SCRUB_FAILURES).tags(tags)
        .description("background scrub passes that ended early on an I/O error or a bug (the next pass follows)")
        .register(registry));
    add(Gauge.builder(NrtMeters.IN_SYNC_REPLICAS, node, MicrometerIndexMetrics::inSyncReplicas).tags(tags)
        .description("on the leading primary: replicas of the in-sync set (NaN elsewhere)").register(registry));
    for (OutOfSyncReason reason : OutOfSyncReason.values()) {
      departures.put(reason, add(Counter.builder(NrtMeters.IN_SYNC_DEPARTURES).tags(tags)
          .tag(NrtMeters.TAG_REASON, reason.name())
          .description("replicas this node, leading, removed from the in-sync set").register(registry)));
    }
    add(Gauge.builder(NrtMeters.CORRUPT_FILES, node, n -> n.integrity().corruptFiles().size()).tags(tags)
        .description("corrupt local files not yet copied again from a primary").register(registry));
    add(Gauge.builder(NrtMeters.QUARANTINED_FILES, node, n -> n.integrity().quarantinedFiles()).tags(tags)
        .description("files the current replica moved into quarantine since it opened").register(registry));
    add(Gauge.builder(NrtMeters.ELIGIBLE, node, n -> n.integrity().eligible() ? 1 : 0).tags(tags)
        .description("1 while this node may rank in an election").register(registry));
    add(Gauge.builder(NrtMeters.LAG_VERSIONS, node, MicrometerIndexMetrics::versionsBehind).tags(tags)
        .description("versions behind the newest one the primary announced").register(registry));
    add(TimeGauge.builder(NrtMeters.LAG, node, TimeUnit.NANOSECONDS, MicrometerIndexMetrics::nanosBehind).tags(tags)
        .description("age of the oldest announced version this replica does not search yet").register(registry));
    delay = add(Timer.builder(NrtMeters.REPLICATION_DELAY).tags(tags)
        .description("from hearing of a version to searching it, per install").register(registry));
    add(Gauge.builder(NrtMeters.COPY_SOURCE, node, MicrometerIndexMetrics::copySource).tags(tags)
        .description("the node this replica copies from, -1 for the primary").register(registry));
    add(FunctionCounter.builder(NrtMeters.BYTES_FROM_PEERS, node, n -> n.replica() == null ? 0 : n.replica().stats().bytesFromPeers())
        .tags(tags).baseUnit("bytes").description("file bytes copied from a peer replica").register(registry));
    add(FunctionCounter.builder(NrtMeters.PEER_FALLBACKS, node, n -> n.replica() == null ? 0 : n.replica().stats().peerFallbacks())
        .tags(tags).description("files a parent replica could not serve, copied from the primary").register(registry));
    replicaLag = new ReplicaLagMeters(registry, tags);
  }

  private <M extends Meter> M add(M meter) {
    meters.add(meter);
    return meter;
  }

  private static double copySource(ClusterNode node) {
    Replica r = node.replica();
    return r == null ? -1 : r.copySource();
  }

  private static double versionsBehind(ClusterNode node) {
    Replica r = node.replica();
    return r == null ? 0 : r.versionsBehind();
  }

  private static double consecutiveCopyFailures(ClusterNode node) {
    Replica r = node.replica();
    return r == null ? 0 : r.stats().consecutiveCopyFailures();
  }

  private static double nanosBehind(ClusterNode node) {
    Replica r = node.replica();
    return r == null ? 0 : r.nanosBehind();
  }

  @Override
  public synchronized void writerLost(StepDownReason reason) {
    // One counter per reason, registered when first seen (a rare event).
    add(Counter.builder(NrtMeters.WRITER_LOST).tags(tags.and(NrtMeters.TAG_REASON, reason.name()))
        .description("times the primary lost its index writer and gave its epoch up").register(registry)).increment();
  }

  @Override
  public void writeRefusedForSpace() {
    refusedForSpace.increment();
  }

  @Override
  public void refreshed(long nanos) {
    refresh.record(nanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void generationSeen(long gen) {
    long previous = lastGeneration.getAndAccumulate(gen, Math::max);
    if (previous >= 0 && gen > previous) {
      failovers.increment();
    }
  }

  @Override
  public ReplicaObserver replicaObserver() {
    return this;
  }

  @Override
  public PrimaryObserver primaryObserver() {
    return this;
  }

  @Override
  public void versionPublished(long version) {
    replicaLag.published(version);
  }

  @Override
  public void sample(ClusterNode node) {
    countDepartures(node.inSyncSet());
    Primary p = node.primary();
    IndexElection election = node.election();
    if (p == null || election == null || node.role() != Role.PRIMARY) {
      replicaLag.sample(nodeId, -1, List.of());
    } else {
      replicaLag.sample(nodeId, p.version(), election.cachedMembers());
    }
  }

  private static double inSyncReplicas(ClusterNode node) {
    InSyncRecord r = node.inSyncSet();
    return r == null ? Double.NaN : r.members().size();
  }

  /**
   * Counts each departure the leading primary's record gains (a departure is new when its time is);
   * those a record carries when this node starts leading an epoch were counted by their primary.
   */
  private void countDepartures(InSyncRecord r) {
    if (r == null) {
      return;
    }
    if (r.epoch() != departuresEpoch) {
      departuresEpoch = r.epoch();
      departuresSeen.clear();
      r.departed().forEach((id, d) -> departuresSeen.put(id, d.atMillis()));
      return;
    }
    r.departed().forEach((id, d) -> {
      Long seen = departuresSeen.put(id, d.atMillis());
      if (seen == null || seen != d.atMillis()) {
        departures.get(d.reason()).increment();
      }
    });
  }

  @Override
  public void preCopyFinished(PreCopyResult result) {
    preCopy.record(result.nanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void bytesCopied(long n) {
    bytes.increment(n);
  }

  @Override
  public void fileCopied() {
    files.increment();
  }

  @Override
  public void checksumMismatch() {
    mismatches.increment();
  }

  @Override
  public void copyFailed() {
    failures.increment();
  }

  @Override
  public void copyFailed(CopyFailureReason reason) {
    failuresByReason.get(reason).increment();
  }

  @Override
  public void fileVerdict(boolean corrupt) {
    (corrupt ? primaryCorrupt : primaryIntact).increment();
  }

  @Override
  public void versionSearched(long version, long nanosSinceAnnounced) {
    if (nanosSinceAnnounced >= 0) {
      delay.record(nanosSinceAnnounced, TimeUnit.NANOSECONDS);
    }
  }

  @Override
  public void storageFailed() {
    storageFailures.increment();
  }

  @Override
  public void resynced() {
    resyncs.increment();
  }

  @Override
  public void staleGenerationRefused() {
    staleGenerations.increment();
  }

  @Override
  public void corruptFileFound(String fileName, boolean byScrub) {
    (byScrub ? corruptByScrub : corruptAtStart).increment();
  }

  @Override
  public void unreadableRead() {
    unreadableReads.increment();
  }

  @Override
  public void corruptFileFoundByRead() {
    corruptByRead.increment();
  }

  @Override
  public void scrubFailed() {
    scrubFailures.increment();
  }

  @Override
  public synchronized void close() {
    replicaLag.close();
    for (Meter m : meters) {
      registry.remove(m);
    }
  }
}
