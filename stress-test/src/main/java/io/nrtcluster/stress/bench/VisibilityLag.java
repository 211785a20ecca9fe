package io.nrtcluster.stress.bench;

import java.util.ArrayList;
import java.util.List;

/** Replica visibility lag: from the start of the primary's refresh of a version to a replica first searching it (or newer). */
final class VisibilityLag {
  private VisibilityLag() {}

  /**
   * @param refreshes the primary's refreshes
   * @param visible each replica's versions, in the order it searched them
   */
  static List<Long> lags(List<BenchApi.Refresh> refreshes, List<List<BenchApi.Seen>> visible) {
    List<Long> lags = new ArrayList<>();
    for (BenchApi.Refresh r : refreshes) {
      for (List<BenchApi.Seen> replica : visible) {
        for (BenchApi.Seen v : replica) {
          if (v.version() >= r.version() && v.nanos() >= r.startNanos()) {
            lags.add(v.nanos() - r.startNanos());
            break;
          }
        }
      }
    }
    return lags;
  }

  /** Local refresh times (end - start) of a load. */
  static List<Long> refreshTimes(List<BenchApi.Refresh> refreshes) {
    List<Long> out = new ArrayList<>();
    for (BenchApi.Refresh r : refreshes) {
      out.add(r.endNanos() - r.startNanos());
    }
    return out;
  }
}
