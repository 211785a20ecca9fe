package io.nrtcluster.stress.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Breaks a replica's lag into its steps (figure 1, figure 8), per version copied: the primary's
 * refresh (start to end, publish gate included), the NRT point on its way (refresh end to point
 * heard), the copy-state (point heard to copy-state in hand: zero when the point brought it), the
 * files (copy-state to every file received and verified), the switch (files to searcher open) and
 * the report (searcher open to the replica's listeners told, which is when the benchmark sees it).
 * All times are {@code System.nanoTime()} of processes on one host: one clock.
 */
final class LagPhases {
  private LagPhases() {}

  /**
   * @param refreshes the primary's refreshes
   * @param phases each replica's copies
   */
  static BenchReport.PhaseBreakdown of(int docsPerSec, int refreshMs, List<BenchApi.Refresh> refreshes,
      List<List<BenchApi.CopySteps>> phases) {
    Map<Long, BenchApi.Refresh> byVersion = new HashMap<>();
    for (BenchApi.Refresh r : refreshes) {
      byVersion.put(r.version(), r);
    }
    List<Long> refresh = new ArrayList<>();
    List<Long> point = new ArrayList<>();
    List<Long> copyState = new ArrayList<>();
    List<Long> files = new ArrayList<>();
    List<Long> searcher = new ArrayList<>();
    List<Long> report = new ArrayList<>();
    for (List<BenchApi.CopySteps> replica : phases) {
      for (BenchApi.CopySteps p : replica) {
        BenchApi.Refresh r = byVersion.get(p.version());
        if (r == null || p.pointNanos() < 0 || p.copyStateNanos() < 0 || p.filesNanos() < 0) {
          continue;
        }
        refresh.add(r.endNanos() - r.startNanos());
        point.add(Math.max(0, p.pointNanos() - r.endNanos()));
        copyState.add(Math.max(0, p.copyStateNanos() - p.pointNanos()));
        files.add(Math.max(0, p.filesNanos() - Math.max(p.pointNanos(), p.copyStateNanos())));
        searcher.add(Math.max(0, p.searcherNanos() - p.filesNanos()));
        report.add(Math.max(0, p.reportedNanos() - p.searcherNanos()));
      }
    }
    return new BenchReport.PhaseBreakdown(docsPerSec, refreshMs, Dist.ofNanos(refresh), Dist.ofNanos(point),
        Dist.ofNanos(copyState), Dist.ofNanos(files), Dist.ofNanos(searcher), Dist.ofNanos(report));
  }
}
