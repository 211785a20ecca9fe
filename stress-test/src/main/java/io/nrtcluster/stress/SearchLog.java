package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;

/**
 * The version every search answer came from, per node process incarnation, with when the search
 * was sent and answered: the {@link SafetyCheck} finds searches that went back in time.
 */
final class SearchLog {
  /**
   * One answered search of node {@code nodeId} in its {@code incarnation}-th process; {@code numDocs}
   * and {@code digest} are the contents it reported (-1 and 0 for a term search, which reports a hit
   * count only); {@code primary}: it answered as its index's primary.
   */
  record Seen(int nodeId, int incarnation, long sentMillis, long receivedMillis, long version, int numDocs, long digest,
      boolean primary) {
    boolean hasContents() {
      return numDocs >= 0;
    }
  }

  private final List<Seen> seen = new ArrayList<>();

  synchronized void add(Seen s) {
    seen.add(s);
  }

  synchronized List<Seen> seen() {
    return List.copyOf(seen);
  }
}
