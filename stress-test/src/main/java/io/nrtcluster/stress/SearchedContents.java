package io.nrtcluster.stress;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Judges what searches returned, not only their version numbers:
 * <ul>
 *   <li>every contents answer (a node's live documents' count and digest at a version) equals what
 *       the primary published at that version, where the run knows it: a refresh acknowledgement
 *       carries the primary's own contents of the version it acknowledged;
 *   <li>no node answers from a version that only a commit of its own as primary made, that no refresh
 *       acknowledged and no other node ever searched, while it was not the primary. A primary's
 *       commit takes writes no refresh published, under a version number no searcher opened; the
 *       only way to search it is to open that commit (a stepped-down or restarted primary), and
 *       that serves writes nobody published, which later vanish.
 * </ul>
 * Pure: the same records give the same result.
 */
final class SearchedContents {
  /**
   * @param judged contents answers compared with the primary's published contents of their version
   * @param unjudged contents answers of versions whose published contents the run does not know
   * @param differ contents answers unlike the primary's published contents of their version, and
   *     versions two primaries published with different contents
   * @param unpublishedCommits searches answered from a commit no refresh published (see the class doc)
   */
  record Result(long judged, long unjudged, long differ, long unpublishedCommits) {
    boolean clean() {
      return differ == 0 && unpublishedCommits == 0;
    }
  }

  private SearchedContents() {}

  static Result check(List<AckLog.Ack> acks, List<AckLog.Commit> commits, List<SearchLog.Seen> searches,
      List<String> examples) {
    Map<Long, AckLog.Ack> publishedContents = new HashMap<>();
    Set<Long> refreshed = new HashSet<>();
    long publishedTwice = 0;
    for (AckLog.Ack a : acks) {
      refreshed.add(a.version());
      if (a.hasContents() && a.gen() >= 0) {
        AckLog.Ack first = publishedContents.putIfAbsent(a.version(), a);
        if (first != null && (first.numDocs() != a.numDocs() || first.digest() != a.digest())) {
          publishedTwice++;
          SafetyCheck.example(examples, "version " + a.version() + " was published by N" + first.nodeId() + " gen="
              + first.gen() + " with " + first.numDocs() + " documents and by N" + a.nodeId() + " gen=" + a.gen()
              + " with " + a.numDocs() + " (other contents)");
        }
      }
    }
    Map<Long, Integer> committedOnlyBy = new HashMap<>();
    for (AckLog.Commit c : commits) {
      if (c.primary() && !refreshed.contains(c.version())) {
        committedOnlyBy.putIfAbsent(c.version(), c.nodeId());
      }
    }
    // A commit's version that another node searched was published as a point (replicas copy nothing
    // else): its refresh acknowledgement was lost, not its publication.
    Set<Long> searchedElsewhere = new HashSet<>();
    for (SearchLog.Seen s : searches) {
      Integer committer = committedOnlyBy.get(s.version());
      if (committer != null && committer != s.nodeId()) {
        searchedElsewhere.add(s.version());
      }
    }
    long judged = 0;
    long unjudged = 0;
    long differ = publishedTwice;
    long unpublished = 0;
    for (SearchLog.Seen s : searches) {
      Integer committer = committedOnlyBy.get(s.version());
      if (committer != null && committer == s.nodeId() && !s.primary() && !searchedElsewhere.contains(s.version())) {
        unpublished++;
        SafetyCheck.example(examples, "N" + s.nodeId() + " (process " + s.incarnation() + ", not primary) answered a search at "
            + s.receivedMillis() + " from version " + s.version() + ", which only its own commit made: no refresh published it");
      }
      if (!s.hasContents()) {
        continue;
      }
      AckLog.Ack p = publishedContents.get(s.version());
      if (p == null) {
        unjudged++;
      } else {
        judged++;
        if (p.numDocs() != s.numDocs() || p.digest() != s.digest()) {
          differ++;
          SafetyCheck.example(examples, "N" + s.nodeId() + " searched version " + s.version() + " with " + s.numDocs()
              + " documents (digest " + Long.toHexString(s.digest()) + ") but N" + p.nodeId() + " gen=" + p.gen()
              + " published it with " + p.numDocs() + " (digest " + Long.toHexString(p.digest()) + ")");
        }
      }
    }
    return new Result(judged, unjudged, differ, unpublished);
  }
}
