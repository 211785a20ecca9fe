package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;

/**
 * The version every search answer came from, per node process incarnation, with when the search
 * was sent and answered: the {@link SafetyCheck} finds searches that went back in time.
 */
final class SearchLog {
  /** One answered search of node {@code nodeId} in its {@code incarnation}-th process. */
  record Seen(int nodeId, int incarnation, long sentMillis, long receivedMillis, long version) {}

  private final List<Seen> seen = new ArrayList<>();

  synchronized void add(Seen s) {
    seen.add(s);
  }

  synchronized List<Seen> seen() {
    return List.copyOf(seen);
  }
}
