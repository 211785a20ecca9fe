package io.nrtcluster.stress;

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
    out.accept(String.format(Locale.ROOT, "chaos: seed %d, %d nodes, %d s, faults %s; %d planned; report in %s", config.seed(),
        config.nodes(), config.duration().toSeconds(), config.faults().stream().map(FaultKind::key).sorted().toList(),
        plan.faults().size(), config.reportDir()));
    try (ChaosCluster cluster = ChaosCluster.start(config, config.reportDir())) {
      Timeline timeline = new Timeline();
      TxLog log = new TxLog(config.seed());
      WritePath path = new WritePath(cluster, log, timeline);
      Ledger ledger = new Ledger();
      FaultRunner faults = new FaultRunner(config, cluster, path, timeline);
      Workload workload = new Workload(config, cluster, log, path, ledger);
      Observer observer = new Observer(cluster, timeline, out, () -> progress(timeline, durationMs, cluster, path, log));
      FinalCheck.Outcome outcome;
      try {
        observer.start();
        workload.start();
        if (!path.awaitClean(config.recoveryTimeout().toMillis())) {
          throw new IllegalStateException("the cluster never accepted a write within " + config.recoveryTimeout());
        }
        faults.run(plan, durationMs + durationMs / 2);
        long left = durationMs - timeline.now();
        if (left > 0) {
          Thread.sleep(left);
        }
        workload.stopWriting();
        outcome = FinalCheck.run(config, cluster, path, log, ledger, observer, out);
      } finally {
        workload.close();
        observer.close();
      }
      ChaosReport report = report(config, plan, timeline, log, path, ledger, faults, observer, workload, outcome);
      ReportWriter.write(report, timeline, config.reportDir());
      out.accept(summary(report));
      return report;
    }
  }

  private static String progress(Timeline timeline, long durationMs, ChaosCluster cluster, WritePath path, TxLog log) {
    WritePath.Target t = path.target();
    return String.format(Locale.ROOT, "chaos %3ds/%ds  primary=%s  ops=%d acked=%d  faults=%d  failovers=%d",
        timeline.now() / 1000, durationMs / 1000, t == null ? "(failing over)" : "N" + t.node().id() + " gen=" + t.gen(),
        log.attempted(), log.acknowledged(), timeline.faultsSoFar(), path.failoverMillis().size());
  }

  private static ChaosReport report(ChaosConfig config, FaultPlan plan, Timeline timeline, TxLog log, WritePath path,
      Ledger ledger, FaultRunner faults, Observer observer, Workload workload, FinalCheck.Outcome outcome) {
    List<String> problems = new ArrayList<>(outcome.problems());
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
    problems.addAll(ledger.examples());
    Map<Long, WritePath.Refresh> refreshes = path.refreshes();
    List<Long> lags = observer.lagMillis(refreshes);
    List<Long> failovers = path.failoverMillis();
    ChaosReport.Faults f = new ChaosReport.Faults(
        timeline.count(FaultKind.PRIMARY_KILL), timeline.count(FaultKind.REPLICA_KILL), timeline.count(FaultKind.JVM_CRASH),
        timeline.count(FaultKind.PAUSE), timeline.count(FaultKind.WIRE), observer.bitFlipsInjected(),
        observer.checksumMismatches(), timeline.count(FaultKind.ZK_RESTART), timeline.count(FaultKind.FULL_RESTART),
        timeline.count(FaultKind.PROMOTION) - faults.promotionsRefused(), faults.promotionsRefused(),
        faults.killsDuringCopy(), faults.killsDuringPreCopy(), plan.faults().size(), faults.skipped(),
        faults.recoveryTimeouts());
    boolean valid = outcome.lost().isEmpty() && outcome.unexpected().isEmpty() && ledger.mismatches() == 0
        && checkIndexFailures == 0 && unreferenced == 0 && outcome.converged();
    return new ChaosReport(config.seed(), config.duration().toSeconds(), config.nodes(),
        new ChaosReport.Ops(log.attempted(), log.acknowledged(), outcome.lost().size(), outcome.unexpected().size(),
            path.replayed()),
        f, failovers.size(), new ChaosReport.Millis(Percentiles.of(failovers, 50), Percentiles.max(failovers)),
        new ChaosReport.Lag(Percentiles.of(lags, 50), Percentiles.of(lags, 99), Percentiles.max(lags), lags.size()),
        ledger.mismatches(), ledger.checks(), checkIndexFailures, unreferenced, workload.searches(),
        outcome.finalVersion(), outcome.converged(), valid, List.copyOf(problems), plan.faults(), timeline.events());
  }

  static String summary(ChaosReport r) {
    ChaosReport.Faults f = r.faults();
    return String.format(Locale.ROOT, """
        chaos verdict: %s
          writes: %d attempted, %d acknowledged, %d replayed; lost %d, unexpected %d
          faults: primaryKill=%d replicaKill=%d jvmCrash=%d pause=%d wire=%d (bit flips %d injected, %d detected) \
        zkServerRestart=%d fullClusterRestart=%d promotion=%d; kills during copy %d, during pre-copy %d
          failovers %d (p50 %d ms, max %d ms); replication lag p50 %d ms, p99 %d ms
          version checks %d, mismatches %d; CheckIndex failures %d; unreferenced files %d; final version %d""",
        r.valid() ? "VALID" : "INVALID", r.ops().attempted(), r.ops().acknowledged(), r.ops().replayed(), r.ops().lost(),
        r.ops().unexpected(), f.primaryKill(), f.replicaKill(), f.jvmCrash(), f.pause(), f.wire(), f.bitFlipsInjected(),
        f.bitFlipsDetected(), f.zkServerRestart(), f.fullClusterRestart(), f.promotion(), f.killsDuringCopy(),
        f.killsDuringPreCopy(), r.failovers(), r.failoverMs().p50(), r.failoverMs().max(), r.replicationLagMs().p50(),
        r.replicationLagMs().p99(), r.versionChecks(), r.versionMismatches(), r.checkIndexFailures(),
        r.unreferencedFiles(), r.finalVersion())
        + (r.problems().isEmpty() ? "" : "\n  problems:\n    " + String.join("\n    ", r.problems()));
  }
}
