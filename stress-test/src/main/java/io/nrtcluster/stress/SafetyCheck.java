package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.TreeMap;

/**
 * The verdict's safety rules over what the run recorded, each counted with examples:
 * <ul>
 *   <li>no refresh acknowledged with a version its generation had not published in ZooKeeper by
 *       then ({@link PublicationAudit}); an acknowledgement whose generation is unknown (the node
 *       switched roles during it) with a version no generation had published by then;
 *   <li>what searches returned ({@link SearchedContents});
 *   <li>no two generations acknowledging in overlapping epochs: once a newer generation's
 *       acknowledgement arrived, no older generation acknowledges a request sent after that;
 *   <li>no node's searches going back to an older version within one process (a search answered
 *       after another one completed never reports an older version).
 * </ul>
 * Pure: the same records give the same result.
 */
final class SafetyCheck {
  private static final int MAX_EXAMPLES = 10;

  /** The counts, and up to ten examples of each kind of violation. */
  record Result(long ackedUnpublished, long unattributedAcks, long epochOverlaps, long searchesBackInTime,
      long acksJudged, long searchesJudged, SearchedContents.Result contents, List<String> examples) {
    boolean clean() {
      return ackedUnpublished == 0 && epochOverlaps == 0 && searchesBackInTime == 0 && contents.clean();
    }
  }

  private SafetyCheck() {}

  static Result check(List<AckLog.Ack> acks, List<AckLog.Commit> commits, PublicationAudit.Publications published,
      List<SearchLog.Seen> searches) {
    List<String> examples = new ArrayList<>();
    long unpublished = 0;
    long unattributed = 0;
    for (AckLog.Ack a : acks) {
      if (a.gen() < 0) {
        // The node switched roles during the refresh, so which generation answered is unknown; the
        // version must still have been published by some generation before the answer arrived.
        unattributed++;
        if (!published.publishedByAny(a.version(), a.receivedMillis())) {
          unpublished++;
          example(examples, "N" + a.nodeId() + " (generation changed meanwhile) acknowledged version " + a.version()
              + (a.probe() ? " (probe)" : "") + " answered at " + a.receivedMillis()
              + " but no generation had published it in ZooKeeper by then");
        }
      } else if (!published.publishedBy(a.gen(), a.version(), a.receivedMillis())) {
        unpublished++;
        example(examples, "N" + a.nodeId() + " gen=" + a.gen() + " acknowledged version " + a.version()
            + (a.probe() ? " (probe)" : "") + " asked at " + a.sentMillis() + ", answered at " + a.receivedMillis()
            + " but ZooKeeper has no such publication by gen " + a.gen() + " by then (" + published.near(a.gen(), a.version())
            + ")");
      }
    }
    long overlaps = epochOverlaps(acks, examples);
    long backwards = backInTime(searches, examples);
    SearchedContents.Result contents = SearchedContents.check(acks, commits, searches, examples);
    return new Result(unpublished, unattributed, overlaps, backwards, acks.size(), searches.size(), contents,
        List.copyOf(examples));
  }

  /**
   * Acknowledgements of a new version by a generation older than one whose acknowledgement had
   * already arrived when they were asked for. Only the first acknowledgement of each (generation,
   * version) counts: a refresh with nothing new answers the version it published before, which
   * acknowledges no write.
   */
  private static long epochOverlaps(List<AckLog.Ack> all, List<String> examples) {
    Map<String, AckLog.Ack> firstOfVersion = new HashMap<>();
    for (AckLog.Ack a : all) {
      if (a.gen() >= 0) {
        firstOfVersion.merge(a.gen() + "/" + a.version(), a, (x, y) -> x.receivedMillis() <= y.receivedMillis() ? x : y);
      }
    }
    List<AckLog.Ack> acks = List.copyOf(firstOfVersion.values());
    // For each generation, its first acknowledgement's arrival; then the earliest over all newer generations.
    TreeMap<Long, AckLog.Ack> firstOfGen = new TreeMap<>();
    for (AckLog.Ack a : acks) {
      if (a.gen() >= 0) {
        firstOfGen.merge(a.gen(), a, (x, y) -> x.receivedMillis() <= y.receivedMillis() ? x : y);
      }
    }
    Map<Long, AckLog.Ack> earliestNewer = new HashMap<>();
    AckLog.Ack best = null;
    for (Map.Entry<Long, AckLog.Ack> e : firstOfGen.descendingMap().entrySet()) {
      earliestNewer.put(e.getKey(), best);
      if (best == null || e.getValue().receivedMillis() < best.receivedMillis()) {
        best = e.getValue();
      }
    }
    long overlaps = 0;
    for (AckLog.Ack a : acks) {
      AckLog.Ack newer = a.gen() < 0 ? null : earliestNewer.get(a.gen());
      if (newer != null && a.sentMillis() > newer.receivedMillis()) {
        overlaps++;
        example(examples, "N" + a.nodeId() + " gen=" + a.gen() + " acknowledged version " + a.version() + " asked at "
            + a.sentMillis() + ", after N" + newer.nodeId() + " gen=" + newer.gen() + " had acknowledged at "
            + newer.receivedMillis());
      }
    }
    return overlaps;
  }

  /** Searches answered with an older version than a search of the same process that had completed before they were sent. */
  private static long backInTime(List<SearchLog.Seen> searches, List<String> examples) {
    Map<String, List<SearchLog.Seen>> byProcess = new HashMap<>();
    for (SearchLog.Seen s : searches) {
      byProcess.computeIfAbsent(s.nodeId() + "/" + s.incarnation(), k -> new ArrayList<>()).add(s);
    }
    long backwards = 0;
    for (List<SearchLog.Seen> list : byProcess.values()) {
      list.sort(Comparator.comparingLong(SearchLog.Seen::sentMillis));
      PriorityQueue<SearchLog.Seen> open = new PriorityQueue<>(Comparator.comparingLong(SearchLog.Seen::receivedMillis));
      SearchLog.Seen newestDone = null;
      for (SearchLog.Seen s : list) {
        while (!open.isEmpty() && open.peek().receivedMillis() < s.sentMillis()) {
          SearchLog.Seen done = open.poll();
          if (newestDone == null || done.version() > newestDone.version()) {
            newestDone = done;
          }
        }
        if (newestDone != null && s.version() < newestDone.version()) {
          backwards++;
          example(examples, "N" + s.nodeId() + " (process " + s.incarnation() + ") searched version " + s.version()
              + " at " + s.sentMillis() + " after it had answered version " + newestDone.version() + " at "
              + newestDone.receivedMillis());
        }
        open.add(s);
      }
    }
    return backwards;
  }

  static void example(List<String> examples, String s) {
    if (examples.size() < MAX_EXAMPLES) {
      examples.add(s);
    }
  }
}
