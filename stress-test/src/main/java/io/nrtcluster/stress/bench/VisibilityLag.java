package io.nrtcluster.stress.bench;

import java.util.ArrayList;
import java.util.List;

/** Replica visibility lag: from the start of the primary's refresh of a version to a replica first searching it (or newer). */
final class VisibilityLag {
  private VisibilityLag() {}

  /**
   * @param refreshes the primary's refreshes, {version, start, end}
   * @param visible each replica's (version, nanos) pairs, in the order it searched them
   */
  static List<Long> lags(List<long[]> refreshes, List<List<long[]>> visible) {
    List<Long> lags = new ArrayList<>();
    for (long[] r : refreshes) {
      for (List<long[]> replica : visible) {
        for (long[] v : replica) {
          if (v[0] >= r[0] && v[1] >= r[1]) {
            lags.add(v[1] - r[1]);
            break;
          }
        }
      }
    }
    return lags;
  }

  /** Local refresh times (end - start) of a load. */
  static List<Long> refreshTimes(List<long[]> refreshes) {
    List<Long> out = new ArrayList<>();
    for (long[] r : refreshes) {
      out.add(r[2] - r[1]);
    }
    return out;
  }
}
