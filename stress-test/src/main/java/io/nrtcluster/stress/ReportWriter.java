package io.nrtcluster.stress;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Locale;

/**
 * Writes a run's verdict: {@code chaos-report.json}, the timeline chart {@code chaos-report.png},
 * and {@code chaos-report.html} (the chart, the figures and every fault, in one self-contained page).
 */
final class ReportWriter {
  static final String JSON_FILE = "chaos-report.json";
  static final String PNG_FILE = "chaos-report.png";
  static final String HTML_FILE = "chaos-report.html";

  private ReportWriter() {}

  static void write(ChaosReport report, Timeline timeline, Path dir) throws IOException {
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve(JSON_FILE).toFile(), report);
    Path png = dir.resolve(PNG_FILE);
    TimelineChart.write(timeline, String.format(Locale.ROOT, "nrtcluster chaos run: seed %d, %d nodes, %d s, %s",
        report.seed(), report.nodes(), report.durationSec(), report.valid() ? "VALID" : "INVALID"), png);
    Files.writeString(dir.resolve(HTML_FILE), html(report, Files.readAllBytes(png)));
  }

  private static String html(ChaosReport r, byte[] png) {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>nrtcluster chaos report</title>\n")
        .append("<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}.ok{color:#080}.bad{color:#c00}</style>")
        .append("</head><body>\n");
    h.append("<h1>Chaos run: <span class=\"").append(r.valid() ? "ok\">VALID" : "bad\">INVALID").append("</span></h1>\n");
    h.append("<p>seed ").append(r.seed()).append(", ").append(r.nodes()).append(" nodes, ").append(r.durationSec())
        .append(" s. Reproduce with <code>bin/nrt chaos --nodes ").append(r.nodes()).append(" --duration ")
        .append(r.durationSec()).append("s --seed ").append(r.seed())
        .append(r.network() == NetworkMode.NAMESPACES ? " --network namespaces" : "")
        .append(r.replication() != null ? " --durability replicated" : "").append(" --report DIR</code>.</p>\n");
    h.append("<img alt=\"timeline\" style=\"max-width:100%\" src=\"data:image/png;base64,")
        .append(Base64.getEncoder().encodeToString(png)).append("\">\n");
    h.append("<h2>Figures</h2><table>\n");
    row(h, "writes attempted / acknowledged / replayed", r.ops().attempted() + " / " + r.ops().acknowledged() + " / " + r.ops().replayed());
    row(h, "acknowledged documents lost", r.ops().lost());
    if (r.replication() != null) {
      row(h, "durability", "replicated: no replay; a write is acknowledged once a replicated refresh on its primary covered it");
      row(h, "replicated", ChaosRun.replicationSummary(r));
    }
    row(h, "unexpected documents", r.ops().unexpected());
    row(h, "version mismatches (of checks)", r.versionMismatches() + " (" + r.versionChecks() + ")");
    row(h, "CheckIndex failures", r.checkIndexFailures());
    row(h, "unreferenced files", r.unreferencedFiles());
    row(h, "failovers", r.failovers());
    row(h, "failover ms p50 / max", r.failoverMs().p50() + " / " + r.failoverMs().max());
    ChaosReport.WriteGap g = r.writeGapMs();
    row(h, "client-observed write gap: longest ms (ended at s); around failovers ms p50 / max (gaps)", g.maxMs()
        + String.format(Locale.ROOT, " (%.1f)", g.maxEndedAtMillis() / 1000.0) + "; " + g.failoverP50Ms() + " / "
        + g.failoverMaxMs() + " (" + g.failoverGaps() + ")");
    row(h, "replication lag ms p50 / p99 / max (samples)", r.replicationLagMs().p50() + " / " + r.replicationLagMs().p99()
        + " / " + r.replicationLagMs().max() + " (" + r.replicationLagMs().samples() + ")");
    row(h, "searches answered / failed", r.searches() + " / " + r.searchesFailed());
    row(h, "final version, converged", r.finalVersion() + ", " + r.converged());
    ChaosReport.Faults f = r.faults();
    row(h, "primary kills / replica kills / JVM crashes", f.primaryKill() + " / " + f.replicaKill() + " / " + f.jvmCrash());
    row(h, "kills during a copy / during a merge pre-copy", f.killsDuringCopy() + " / " + f.killsDuringPreCopy());
    row(h, "copy parents killed (during a child's copy; not applicable) / children's peer fallbacks",
        f.copyParentKill() + " (" + f.copyParentKillsDuringCopy() + "; " + f.copyParentKillsNotApplicable() + ") / "
            + f.childPeerFallbacks());
    row(h, "pauses", f.pause());
    row(h, "wire fault windows; bit flips injected / detected / discarded / undetected / unaccounted",
        f.wire() + "; " + f.bitFlipsInjected() + " / " + f.bitFlipsDetected() + " / " + f.bitFlipsDiscarded() + " / "
            + f.bitFlipsUndetected() + " / " + f.bitFlipsUnaccounted() + " (" + f.checksumMismatches() + " checksum mismatches)");
    row(h, "ZooKeeper server restarts / full-cluster restarts", f.zkServerRestart() + " / " + f.fullClusterRestart());
    row(h, "promotions (refused)", f.promotion() + " (" + f.promotionsRefused() + ")");
    row(h, "primary paused past its session", f.primaryPause());
    row(h, "partitions: primary/ZooKeeper, primary/replicas, halves, bridge, one-way", f.partitionPrimaryZooKeeper() + ", "
        + f.partitionPrimaryReplicas() + ", " + f.partitionHalves() + ", " + f.partitionBridge() + ", " + f.partitionOneWay());
    row(h, "slow links", f.slowLink());
    row(h, "faults planned / skipped; recovery timeouts", f.planned() + " / " + f.skipped() + "; " + f.recoveryTimeouts());
    ChaosReport.Safety s = r.safety();
    row(h, "network", r.network().name().toLowerCase(Locale.ROOT));
    row(h, "publications found in ZooKeeper's transaction logs", s.publications());
    row(h, "refresh acknowledgements judged (unattributed)", s.refreshAcks() + " (" + s.unattributedAcks() + ")");
    row(h, "acknowledged with an unpublished version", s.ackedUnpublished());
    row(h, "acknowledged in overlapping epochs", s.epochOverlaps());
    row(h, "version numbers served with two contents", s.versionsReused());
    row(h, "searches judged / back in time", s.searchesJudged() + " / " + s.searchesBackInTime());
    row(h, "searched contents judged (unjudged) / unlike the published ones", s.contentsJudged() + " ("
        + s.contentsUnjudged() + ") / " + s.contentsDiffer());
    row(h, "searches of a commit no refresh published", s.unpublishedCommitsSearched());
    row(h, "status answers / over " + s.statusBoundMs() + " ms / slowest ms", s.statusAnswers() + " / " + s.statusOverBound()
        + " / " + s.statusMaxMs());
    row(h, "network faults healed / not converged / ms to converge p50, max", s.networkFaultsHealed() + " / "
        + s.notConvergedAfterHeal() + " / " + s.convergeAfterHealMs().p50() + ", " + s.convergeAfterHealMs().max());
    h.append("</table>\n");
    if (!r.problems().isEmpty()) {
      h.append("<h2>Problems</h2><ul>\n");
      r.problems().forEach(p -> h.append("<li>").append(escape(p)).append("</li>\n"));
      h.append("</ul>\n");
    }
    h.append("<h2>Faults injected</h2><table><tr><th>at (s)</th><th>healed (s)</th><th>kind</th><th>target</th><th>detail</th></tr>\n");
    for (Timeline.Event e : r.events()) {
      h.append("<tr><td>").append(String.format(Locale.ROOT, "%.1f", e.atMillis() / 1000.0)).append("</td><td>")
          .append(e.untilMillis() < 0 ? "" : String.format(Locale.ROOT, "%.1f", e.untilMillis() / 1000.0)).append("</td><td>")
          .append(e.kind().key()).append("</td><td>").append(escape(e.target())).append("</td><td>")
          .append(escape(e.detail())).append("</td></tr>\n");
    }
    h.append("</table>\n</body></html>\n");
    return h.toString();
  }

  private static void row(StringBuilder h, String name, Object value) {
    h.append("<tr><th>").append(escape(name)).append("</th><td>").append(escape(String.valueOf(value))).append("</td></tr>\n");
  }

  private static String escape(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
