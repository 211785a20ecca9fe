package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The cross-node invariants: at a given version, every node returns the same hit count for the same
 * query, and the same contents (live document count and digest). The first answer seen for a
 * (version, question) is the reference; any later different answer, from any node, is a mismatch.
 */
final class Ledger {
  private static final int MAX_EXAMPLES = 20;
  private final Map<String, long[]> answers = new HashMap<>();
  private final List<String> examples = new ArrayList<>();
  private final java.util.Set<Long> mismatchedVersions = new java.util.TreeSet<>();
  private long checks;
  private long mismatches;

  /** Hit count of {@code term} at {@code version} on {@code node}. */
  void hits(int node, long version, String term, long hits) {
    check(node, version, "term:" + term, hits, 0);
  }

  /** Contents of {@code version} on {@code node}. */
  void contents(int node, long version, long numDocs, long digest) {
    check(node, version, "contents", numDocs, digest);
  }

  private synchronized void check(int node, long version, String question, long a, long b) {
    checks++;
    String key = version + "/" + question;
    long[] first = answers.putIfAbsent(key, new long[] {a, b, node});
    if (first != null && (first[0] != a || first[1] != b)) {
      mismatches++;
      mismatchedVersions.add(version);
      if (examples.size() < MAX_EXAMPLES) {
        examples.add("version " + version + " " + question + ": N" + first[2] + " said " + first[0] + "/" + first[1]
            + ", N" + node + " said " + a + "/" + b);
      }
    }
  }

  synchronized long checks() {
    return checks;
  }

  synchronized long mismatches() {
    return mismatches;
  }

  /** Version numbers seen with two different contents (or answers): a version published twice. */
  synchronized long mismatchedVersions() {
    return mismatchedVersions.size();
  }

  synchronized List<String> examples() {
    return List.copyOf(examples);
  }
}
