package io.nrtcluster.stress;

import io.nrtcluster.node.Durability;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One chaos run from start to verdict: starts a three-server ZooKeeper ensemble and the node
 * processes, runs the workload while the seeded {@link FaultPlan} crashes, pauses and corrupts the
 * cluster, runs the {@link FinalCheck}, and writes the reports. Progress goes to {@code out}.
 */
public final class ChaosRun {
  private ChaosRun() {}

  /** Runs the whole test and returns its verdict (also written to the report directory). */
  public static ChaosReport run(ChaosConfig config, Consumer<String> out) throws Exception {
    Files.createDirectories(config.reportDir());
    FaultPlan plan = FaultPlan.generate(config);
    long durationMs = config.duration().toMillis();
    out.accept(String.format(Locale.ROOT, "chaos: seed %d, %d nodes, %d s, faults %s; %d planned (%d an hour; about %d wire "
        + "bit flips expected); report in %s", config.seed(), config.nodes(), config.duration().toSeconds(),
        config.faults().stream().map(FaultKind::key).sorted().toList(), plan.faults().size(), config.faultRate(),
        plan.expectedWireFlips(), config.reportDir()));
    if (config.durability() == Durability.REPLICATED) {
      out.accept("chaos: durability replicated: writes acknowledged by replicated refreshes, no replay after failovers");
    }
    try (ChaosCluster cluster = ChaosCluster.start(config, config.reportDir())) {
      Timeline timeline = new Timeline();
      TxLog log = new TxLog(config.seed());
      AckLog acks = new AckLog();
      SearchLog searches = new SearchLog();
      WritePath path = new WritePath(cluster, log, timeline, acks, config.durability());
      Ledger ledger = new Ledger(timeline::now);
      FaultRunner faults = new FaultRunner(config, cluster, path, timeline);
      Workload workload = new Workload(config, cluster, log, path, ledger, searches);
      Observer observer = new Observer(cluster, timeline, out, () -> progress(timeline, durationMs, cluster, path, log));
      EpochProbe probe = new EpochProbe(cluster, observer, acks);
      ChaosFollowers followers = config.followers() == 0 ? null
          : ChaosFollowers.start(cluster.store(), config.reportDir(), config.followers(), searches, ledger);
      FinalCheck.Outcome outcome;
      try {
        observer.start();
        workload.start();
        probe.start();
        if (!path.awaitClean(config.recoveryTimeout().toMillis())) {
          throw new IllegalStateException("the cluster never accepted a write within " + config.recoveryTimeout());
        }
        faults.run(plan, durationMs + durationMs / 2);
        long left = durationMs - timeline.now();
        if (left > 0) {
          Thread.sleep(left);
        }
        workload.stopWriting();
        probe.close();
        outcome = FinalCheck.run(config, cluster, path, log, ledger, observer, out);
      } finally {
        probe.close();
        workload.close();
        observer.close();
        if (followers != null) {
          followers.close();
        }
      }
      List<String> auditProblems = new ArrayList<>();
      PublicationAudit.Publications published;
      try {
        published = PublicationAudit.read(config.reportDir().resolve("zookeeper"), ChaosCluster.CLUSTER, ChaosCluster.INDEX);
      } catch (IOException | RuntimeException e) {
        auditProblems.add("ZooKeeper's transaction logs could not be read, so publications cannot be checked: " + e);
        published = null;
      }
      SafetyCheck.Result safety = SafetyCheck.check(acks.acks(), acks.commits(), published != null ? published
          : new PublicationAudit.Publications(List.of(), 0, 0), searches.seen());
      ChaosReport.Followers followed = followers == null ? null : followers.check(published);
      if (followed != null) {
        auditProblems.addAll(followed.examples());
      }
      ChaosReport report = report(config, plan, timeline, log, path, ledger, faults, observer, workload, outcome,
          safety, published, auditProblems, followed);
      ReportWriter.write(report, timeline, config.reportDir());
      out.accept(summary(report));
      long excused = ledger.judge(rotWindows(faults.diskFlips())).excusedAnswers();
      if (excused > 0) {
        out.accept("  " + excused + " answers of nodes serving a file flipped on their own disk, until their scrub found it"
            + " (and " + DiskFlipFault.REACTION_MILLIS + " ms to react), not judged against the other nodes'");
      }
      return report;
    }
  }

  /**
   * Where a node served a file rotted on its own disk: from each running-node flip it found (its scrub
   * quarantined the file) or that went away (merged, replaced) to {@link DiskFlipFault#REACTION_MILLIS}
   * after that, the time its reaction (a primary's step-down and its bridge, a replica's next installed
   * point) takes to stop searching it. A killed node's flip needs none: it is found before it serves.
   */
  static List<Ledger.Excused> rotWindows(List<ChaosReport.DiskFlip> flips) {
    List<Ledger.Excused> out = new ArrayList<>();
    for (ChaosReport.DiskFlip d : flips) {
      if (d.running() && d.ok()) {
        out.add(new Ledger.Excused(d.node(), d.atMillis(), d.atMillis() + d.foundAfterMillis() + DiskFlipFault.REACTION_MILLIS));
      }
    }
    return out;
  }

  private static String progress(Timeline timeline, long durationMs, ChaosCluster cluster, WritePath path, TxLog log) {
    WritePath.Target t = path.target();
    return String.format(Locale.ROOT, "chaos %3ds/%ds  primary=%s  ops=%d acked=%d  faults=%d  failovers=%d",
        timeline.now() / 1000, durationMs / 1000, t == null ? "(failing over)" : "N" + t.node().id() + " gen=" + t.gen(),
        log.attempted(), log.acknowledged(), timeline.faultsSoFar(), path.failoverMillis().size());
  }

  private static ChaosReport report(ChaosConfig config, FaultPlan plan, Timeline timeline, TxLog log, WritePath path,
      Ledger ledger, FaultRunner faults, Observer observer, Workload workload, FinalCheck.Outcome outcome,
      SafetyCheck.Result safetyResult, PublicationAudit.Publications published, List<String> auditProblems,
      ChaosReport.Followers followed) {
    List<String> problems = new ArrayList<>(outcome.problems());
    Ledger.Judgement answers = ledger.judge(rotWindows(faults.diskFlips()));
    problems.addAll(auditProblems);
    problems.addAll(safetyResult.examples());
    Observer.StatusFigures status = observer.statusFigures();
    problems.addAll(status.examples());
    Recovery recovery = faults.recovery();
    List<Long> converge = recovery.convergeMillis();
    ChaosReport.Safety safety = new ChaosReport.Safety(published == null ? -1 : published.all().size(),
        safetyResult.acksJudged(), safetyResult.unattributedAcks(), safetyResult.ackedUnpublished(),
        safetyResult.epochOverlaps(), answers.mismatchedVersions(), safetyResult.searchesJudged(),
        safetyResult.searchesBackInTime(), safetyResult.contents().judged(), safetyResult.contents().unjudged(),
        safetyResult.contents().differ(), safetyResult.contents().unpublishedCommits(), status.answers(), status.overBound(), status.maxMillis(), status.boundMillis(),
        converge.size() + recovery.notConverged(), recovery.notConverged(),
        new ChaosReport.Millis(Percentiles.of(converge, 50), Percentiles.max(converge)));
    for (ChaosReport.DiskFlip d : faults.diskFlips()) {
      if (!d.ok()) {
        problems.add("N" + d.node() + (d.running() ? " (running" : " (killed") + (d.primary() ? ", primary)" : ")")
            + " did not find " + d.file() + (d.running() ? " within one scrub pass" : " before it served")
            + " after bit " + d.bit() + " of it was flipped on its disk at " + d.atMillis() + " ms: " + d.found());
      }
    }
    List<ChaosReport.Rebuild> rebuilds = faults.rebuilds();
    List<ChaosReport.StoreOutage> outages = faults.storeOutages();
    for (ChaosReport.Rebuild r : rebuilds) {
      if (r.catchUpMillis() < 0) {
        problems.add("N" + r.node() + ", rebuilt at " + r.atMillis() + " ms (bootstrap " + r.bootstrap()
            + "), did not catch up within the recovery timeout");
      }
    }
    for (ChaosReport.StoreOutage o : outages) {
      if (o.convergedWhileDownMillis() < 0) {
        problems.add("while the object store was down at " + o.atMillis() + " ms, no refresh reached every node in time");
      }
      if (o.backupsResumedAfterMillis() < 0) {
        problems.add("after the object store came back at " + (o.atMillis() + o.downMillis())
            + " ms, no newer backup than version " + o.backupAtRestart() + " appeared within the recovery timeout");
      }
    }
    ChaosReport.StoreCheck store = outcome.store();
    if (store != null) {
      problems.addAll(store.problems());
    }
    boolean storeClean = rebuilds.stream().allMatch(r -> r.catchUpMillis() >= 0)
        && outages.stream().allMatch(o -> o.convergedWhileDownMillis() >= 0 && o.backupsResumedAfterMillis() >= 0)
        && (store == null || store.problems().isEmpty());
    if (recovery.notConverged() > 0) {
      problems.add(recovery.notConverged() + " healed network or disk faults after which the nodes did not converge in time");
    }
    int checkIndexFailures = 0;
    int unreferenced = 0;
    for (IndexAudit.Result a : outcome.audits()) {
      if (!a.clean()) {
        checkIndexFailures++;
        problems.add("N" + a.nodeId() + " CheckIndex: " + a.problem());
      }
      if (!a.unreferenced().isEmpty()) {
        unreferenced += a.unreferenced().size();
        problems.add("N" + a.nodeId() + " unreferenced files: " + a.unreferenced());
      }
    }
    if (!outcome.lost().isEmpty()) {
      problems.add("lost documents (first ones): " + outcome.lost().stream().limit(20).toList());
    }
    if (!outcome.unexpected().isEmpty()) {
      problems.add("unexpected documents (first ones): " + outcome.unexpected().stream().limit(20).toList());
    }
    problems.addAll(answers.examples());
    Map<Long, WritePath.Refresh> refreshes = path.refreshes();
    List<Long> lags = observer.lagMillis(refreshes);
    List<Long> failovers = path.failoverMillis();
    WireFlipCheck.Result flips = WireFlipCheck.check(observer.flipSamples());
    problems.addAll(flips.problems());
    List<ChaosReport.ParentKill> parentKills = faults.copyParentKill().kills();
    ChaosReport.Faults f = new ChaosReport.Faults(
        timeline.count(FaultKind.PRIMARY_KILL), timeline.count(FaultKind.REPLICA_KILL), timeline.count(FaultKind.JVM_CRASH),
        timeline.count(FaultKind.PAUSE), timeline.count(FaultKind.WIRE), flips.injected(), flips.detected(),
        flips.discarded(), flips.undetected(), flips.unaccounted(), observer.checksumMismatches(),
        timeline.count(FaultKind.ZK_RESTART), timeline.count(FaultKind.FULL_RESTART),
        timeline.count(FaultKind.PROMOTION) - faults.promotionsRefused(), faults.promotionsRefused(),
        timeline.count(FaultKind.PRIMARY_PAUSE), timeline.count(FaultKind.PARTITION_PRIMARY_ZOOKEEPER),
        timeline.count(FaultKind.PARTITION_PRIMARY_REPLICAS), timeline.count(FaultKind.PARTITION_HALVES),
        timeline.count(FaultKind.PARTITION_BRIDGE), timeline.count(FaultKind.PARTITION_ONE_WAY),
        timeline.count(FaultKind.SLOW_LINK), timeline.count(FaultKind.DISK_FULL),
        timeline.count(FaultKind.DISK_BIT_FLIP), timeline.count(FaultKind.COPY_DROP),
        timeline.count(FaultKind.REPLICA_REBUILD), (int) rebuilds.stream().filter(ChaosReport.Rebuild::restored).count(),
        (int) rebuilds.stream().filter(r -> !r.restored()).count(), timeline.count(FaultKind.STORE_RESTART),
        faults.killsDuringCopy(), faults.killsDuringPreCopy(), timeline.count(FaultKind.COPY_PARENT_KILL),
        (int) parentKills.stream().filter(ChaosReport.ParentKill::duringCopy).count(),
        faults.copyParentKill().notApplicable(),
        parentKills.stream().mapToLong(k -> Math.max(0, k.childPeerFallbacks())).sum(), plan.faults().size(),
        faults.skipped(), recovery.timeouts());
    ChaosReport.Replication replication = replication(path, outcome);
    boolean valid = outcome.lost().isEmpty() && outcome.unexpected().isEmpty() && answers.mismatches() == 0
        && checkIndexFailures == 0 && unreferenced == 0 && outcome.converged() && safety.clean() && flips.clean()
        && faults.diskFlips().stream().allMatch(ChaosReport.DiskFlip::ok) && storeClean
        && (followed == null || followed.clean());
    long acknowledged = replication == null ? log.acknowledged() : path.replicated().writesAcknowledged();
    return new ChaosReport(config.seed(), config.duration().toSeconds(), config.nodes(), config.network(), config.storage(),
        config.durability(),
        new ChaosReport.Ops(log.attempted(), acknowledged, outcome.lost().size(), outcome.unexpected().size(),
            path.replayed()),
        replication,
        f, failovers.size(), new ChaosReport.Millis(Percentiles.of(failovers, 50), Percentiles.max(failovers)),
        path.writeGaps(),
        new ChaosReport.Lag(Percentiles.of(lags, 50), Percentiles.of(lags, 99), Percentiles.max(lags), lags.size()),
        answers.mismatches(), answers.checks(), checkIndexFailures, unreferenced, workload.searches(),
        workload.searchFailures(),
        outcome.finalVersion(), outcome.converged(), valid, safety, faults.networkOutcomes(), faults.diskOutcomes(),
        faults.diskFlips(), rebuilds, outages, parentKills, store, followed, List.copyOf(problems),
        plan.faults(), timeline.events());
  }

  /** The figures of replicated durability, or null in the default mode. */
  private static ChaosReport.Replication replication(WritePath path, FinalCheck.Outcome outcome) {
    if (path.durability() != Durability.REPLICATED) {
      return null;
    }
    ReplicatedAcks a = path.replicated();
    ReplicatedVerdict.Result v = outcome.replicated();
    return new ChaosReport.Replication(a.batchesAccepted(), a.batchesAcknowledged(), a.refreshesAcknowledged(),
        a.refreshesUnattributed(), a.refusals(), v == null ? -1 : v.indeterminate(), v == null ? -1 : v.kept(),
        v == null ? -1 : v.lost(), v == null ? -1 : v.superseded(), path.surviving().voided(),
        v == null ? -1 : v.acknowledgedLost().size());
  }

  /** The console's line for replicated durability, or null in the default mode. */
  static String replicationSummary(ChaosReport r) {
    ChaosReport.Replication p = r.replication();
    if (p == null) {
      return null;
    }
    ChaosReport.Refusals n = p.refused();
    return String.format(Locale.ROOT, "durability replicated (no replay): %d of %d accepted batches acknowledged by %d "
        + "replicated refreshes (%d unattributed); refreshes refused: %d not enough replicas, %d not primary, %d not "
        + "published, %d timeouts, %d given up, %d unreachable, %d other; indeterminate writes %d: %d kept, %d lost "
        + "(allowed), %d superseded; %d acknowledged writes voided by full-cluster crashes before a commit; acknowledged "
        + "lost %d", p.batchesAcknowledged(), p.batchesAccepted(),
        p.refreshesAcknowledged(), p.refreshesUnattributed(), n.notEnoughReplicas(), n.notPrimary(), n.notPublished(),
        n.timeouts(), n.givenUp(), n.unreachable(), n.other(), p.indeterminate(), p.indeterminateKept(),
        p.indeterminateLost(), p.indeterminateSuperseded(), p.acknowledgedVoided(), p.acknowledgedLost());
  }

  static String summary(ChaosReport r) {
    String s = localSummary(r);
    String replicated = replicationSummary(r);
    if (replicated == null) {
      return s;
    }
    // After the "writes:" line, whose acknowledged and lost figures it explains.
    int end = s.indexOf('\n', s.indexOf('\n') + 1);
    return s.substring(0, end) + "\n  " + replicated + s.substring(end);
  }

  private static String localSummary(ChaosReport r) {
    ChaosReport.Faults f = r.faults();
    ChaosReport.Safety s = r.safety();
    return String.format(Locale.ROOT, """
        chaos verdict: %s
          writes: %d attempted, %d acknowledged, %d replayed; lost %d, unexpected %d
          faults: primaryKill=%d replicaKill=%d jvmCrash=%d pause=%d wire=%d (bit flips %d injected, %d detected, %d discarded, \
        %d undetected, %d unaccounted; %d checksum mismatches) \
        zkServerRestart=%d fullClusterRestart=%d promotion=%d; kills during copy %d, during pre-copy %d
          failovers %d (p50 %d ms, max %d ms; %s); replication lag p50 %d ms, p99 %d ms
          primaryPause=%d partitionPrimaryZooKeeper=%d partitionPrimaryReplicas=%d partitionHalves=%d \
        partitionBridge=%d partitionOneWay=%d slowLink=%d (network: %s); diskFull=%d (storage: %s) diskBitFlip=%d (%d on running nodes, %d not found in time) copyDrop=%d
          version checks %d, mismatches %d; CheckIndex failures %d; unreferenced files %d; final version %d
          safety: %d publications in ZooKeeper; %d refresh acks judged (%d unattributed), %d unpublished, %d in overlapping epochs; \
        %d versions reused; %d searches judged, %d back in time; searched documents: %d contents judged (%d unjudged), \
        %d unlike the published ones, %d searches of unpublished commits; status %d answers, %d over %d ms (max %d ms); \
        %d network faults healed, %d not converged (max %d ms to converge)""",
        r.valid() ? "VALID" : "INVALID", r.ops().attempted(), r.ops().acknowledged(), r.ops().replayed(), r.ops().lost(),
        r.ops().unexpected(), f.primaryKill(), f.replicaKill(), f.jvmCrash(), f.pause(), f.wire(), f.bitFlipsInjected(),
        f.bitFlipsDetected(), f.bitFlipsDiscarded(), f.bitFlipsUndetected(), f.bitFlipsUnaccounted(),
        f.checksumMismatches(), f.zkServerRestart(), f.fullClusterRestart(), f.promotion(), f.killsDuringCopy(),
        f.killsDuringPreCopy(), r.failovers(), r.failoverMs().p50(), r.failoverMs().max(),
        WriteGaps.describe(r.writeGapMs()), r.replicationLagMs().p50(),
        r.replicationLagMs().p99(), f.primaryPause(), f.partitionPrimaryZooKeeper(), f.partitionPrimaryReplicas(),
        f.partitionHalves(), f.partitionBridge(), f.partitionOneWay(), f.slowLink(),
        r.network().name().toLowerCase(Locale.ROOT), f.diskFull(), r.storage().name().toLowerCase(Locale.ROOT),
        f.diskBitFlip(), r.diskFlips().stream().filter(ChaosReport.DiskFlip::running).count(),
        r.diskFlips().stream().filter(d -> !d.ok()).count(), f.copyDrop(),
        r.versionChecks(), r.versionMismatches(), r.checkIndexFailures(),
        r.unreferencedFiles(), r.finalVersion(), s.publications(), s.refreshAcks(), s.unattributedAcks(), s.ackedUnpublished(),
        s.epochOverlaps(), s.versionsReused(), s.searchesJudged(), s.searchesBackInTime(), s.contentsJudged(),
        s.contentsUnjudged(), s.contentsDiffer(), s.unpublishedCommitsSearched(), s.statusAnswers(), s.statusOverBound(),
        s.statusBoundMs(), s.statusMaxMs(), s.networkFaultsHealed(), s.notConvergedAfterHeal(),
        s.convergeAfterHealMs().max())
        + copyTreeSummary(r) + storeSummary(r) + followerSummary(r)
        + (r.problems().isEmpty() ? "" : "\n  problems:\n    " + String.join("\n    ", r.problems()));
  }

  /** The console's line for copy parent kills, or nothing when the run had none (made or not applicable). */
  private static String copyTreeSummary(ChaosReport r) {
    ChaosReport.Faults f = r.faults();
    if (f.copyParentKill() == 0 && f.copyParentKillsNotApplicable() == 0) {
      return "";
    }
    return String.format(Locale.ROOT, "%n  copy tree: copyParentKill=%d (%d during a child's copy from it, %d not applicable: "
        + "no parent then); the children's peer fallbacks to the primary %d", f.copyParentKill(),
        f.copyParentKillsDuringCopy(), f.copyParentKillsNotApplicable(), f.childPeerFallbacks());
  }

  private static String followerSummary(ChaosReport r) {
    ChaosReport.Followers f = r.followers();
    if (f == null) {
      return "";
    }
    return String.format(Locale.ROOT, "%n  store followers: %d, %d searches (judged as replicas'), %d points installed, %d "
        + "install failures, %d versions behind at the end; %s searches of versions no generation had published",
        f.followers(), f.searches(), f.pointsInstalled(), f.installFailures(), f.lagVersionsAtEnd(),
        f.unpublishedSearches() < 0 ? "unknown (ZooKeeper's logs unreadable)" : Long.toString(f.unpublishedSearches()));
  }

  private static String storeSummary(ChaosReport r) {
    ChaosReport.StoreCheck c = r.store();
    if (c == null) {
      return "";
    }
    ChaosReport.Faults f = r.faults();
    return String.format(Locale.ROOT, "%n  object store: replicaRebuild=%d (%d restored from the store, %d fell back to the "
        + "primary) storeRestart=%d (%d with backups resumed); %d backups at the end (%d verified intact), the newest "
        + "(version %d, %d documents) %s, %d documents disagree with the log", f.replicaRebuild(), f.rebuildsRestored(),
        f.rebuildsFellBack(), f.storeRestart(), r.storeOutages().stream().filter(o -> o.backupsResumedAfterMillis() >= 0).count(),
        c.backups(), c.verifiedIntact(), c.version(), c.numDocs(), c.restored() ? "restored and verified" : "NOT restored", c.inconsistencies());
  }
}
