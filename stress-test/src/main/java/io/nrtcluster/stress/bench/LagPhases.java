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
   * @param refreshes the primary's refreshes, {version, start, end}
   * @param phases each replica's copies, {version, point, copy-state, files, searcher}
   */
  static BenchReport.PhaseBreakdown of(int docsPerSec, int refreshMs, List<long[]> refreshes, List<List<long[]>> phases) {
    Map<Long, long[]> byVersion = new HashMap<>();
    for (long[] r : refreshes) {
      byVersion.put(r[0], r);
    }
    List<Long> refresh = new ArrayList<>();
    List<Long> point = new ArrayList<>();
    List<Long> copyState = new ArrayList<>();
    List<Long> files = new ArrayList<>();
    List<Long> searcher = new ArrayList<>();
    List<Long> report = new ArrayList<>();
    for (List<long[]> replica : phases) {
      for (long[] p : replica) {
        long[] r = byVersion.get(p[0]);
        if (r == null || p[1] < 0 || p[2] < 0 || p[3] < 0) {
          continue;
        }
        refresh.add(r[2] - r[1]);
        point.add(Math.max(0, p[1] - r[2]));
        copyState.add(Math.max(0, p[2] - p[1]));
        files.add(Math.max(0, p[3] - Math.max(p[1], p[2])));
        searcher.add(Math.max(0, p[4] - p[3]));
        report.add(p.length > 5 ? Math.max(0, p[5] - p[4]) : 0);
      }
    }
    return new BenchReport.PhaseBreakdown(docsPerSec, refreshMs, Dist.ofNanos(refresh), Dist.ofNanos(point),
        Dist.ofNanos(copyState), Dist.ofNanos(files), Dist.ofNanos(searcher), Dist.ofNanos(report));
  }
}
