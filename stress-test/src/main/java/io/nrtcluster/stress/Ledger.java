package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongSupplier;

/**
 * The cross-node invariants: at a given version, every node returns the same hit count for the same
 * query, and the same contents (live document count and digest). Every answer is kept with the run
 * time it came in; {@link #judge} takes, per (version, question), the first answer it judges as the
 * reference, and any later different answer, from any node, is a mismatch.
 *
 * <p>One exception, and only one: a node serving a file that a running-node disk flip rotted on its
 * own disk may answer wrongly until its scrub found the file and it stopped searching it (Lucene
 * checks no checksum on an ordinary read; finding such rot is the scrub's job, within its bound).
 * Its answers inside that window ({@link Excused}) are not judged, and are counted; every other
 * node's are, and so are its own outside the window.
 */
final class Ledger {
  private static final int MAX_EXAMPLES = 20;
  private final LongSupplier now;
  private final Map<String, List<Answer>> answers = new LinkedHashMap<>();

  /** One node's answer to one question at one version, at run time {@code atMillis}. */
  private record Answer(int node, long atMillis, long a, long b) {}

  /** Node {@code node}'s answers from {@code fromMillis} to {@code toMillis} (run time) go unjudged. */
  record Excused(int node, long fromMillis, long toMillis) {
    boolean covers(int n, long atMillis) {
      return n == node && atMillis >= fromMillis && atMillis <= toMillis;
    }
  }

  /**
   * What the answers say.
   *
   * @param checks answers judged
   * @param mismatches judged answers that differ from their reference
   * @param mismatchedVersions version numbers seen with two different answers: a version published twice
   * @param excusedAnswers answers not judged (a node serving a file rotted on its disk, in its window)
   * @param examples the first mismatches, in words
   */
  record Judgement(long checks, long mismatches, long mismatchedVersions, long excusedAnswers, List<String> examples) {}

  /** A ledger whose answers all come at run time 0 (for callers that excuse nothing). */
  Ledger() {
    this(() -> 0);
  }

  /** A ledger that stamps each answer with {@code now} (the run's timeline). */
  Ledger(LongSupplier now) {
    this.now = now;
  }

  /** Hit count of {@code term} at {@code version} on {@code node}. */
  void hits(int node, long version, String term, long hits) {
    record(node, version, "term:" + term, hits, 0);
  }

  /** Contents of {@code version} on {@code node}. */
  void contents(int node, long version, long numDocs, long digest) {
    record(node, version, "contents", numDocs, digest);
  }

  private synchronized void record(int node, long version, String question, long a, long b) {
    answers.computeIfAbsent(version + "/" + question, k -> new ArrayList<>()).add(new Answer(node, now.getAsLong(), a, b));
  }

  /** Judges every answer so far, leaving out those {@code excused} covers. */
  synchronized Judgement judge(List<Excused> excused) {
    long checks = 0;
    long mismatches = 0;
    long skipped = 0;
    Set<Long> versions = new TreeSet<>();
    List<String> examples = new ArrayList<>();
    for (Map.Entry<String, List<Answer>> e : answers.entrySet()) {
      Answer first = null;
      for (Answer x : e.getValue()) {
        if (excused.stream().anyMatch(w -> w.covers(x.node(), x.atMillis()))) {
          skipped++;
          continue;
        }
        checks++;
        if (first == null) {
          first = x;
        } else if (first.a() != x.a() || first.b() != x.b()) {
          mismatches++;
          String key = e.getKey();
          int slash = key.indexOf('/');
          versions.add(Long.parseLong(key.substring(0, slash)));
          if (examples.size() < MAX_EXAMPLES) {
            examples.add("version " + key.substring(0, slash) + " " + key.substring(slash + 1) + ": N" + first.node() + " said "
                + first.a() + "/" + first.b() + ", N" + x.node() + " said " + x.a() + "/" + x.b());
          }
        }
      }
    }
    return new Judgement(checks, mismatches, versions.size(), skipped, List.copyOf(examples));
  }

  /** Every answer judged, nothing excused: how many there are. */
  long checks() {
    return judge(List.of()).checks();
  }

  /** Every answer judged, nothing excused: how many differ from their reference. */
  long mismatches() {
    return judge(List.of()).mismatches();
  }
}
