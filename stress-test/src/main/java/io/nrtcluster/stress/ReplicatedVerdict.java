package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.LongPredicate;

/**
 * The final verdict of a run with replicated durability, where the harness never replays its log:
 * which documents every node may end with, given which writes were acknowledged ({@link
 * ReplicatedAcks}).
 *
 * <p>The rule, per document (as Jepsen judges a register): its writes are totally ordered (one
 * indexer owns each id and sends its writes one batch after the other, so log order is real-time
 * order), and its state after a write is the write's revision for an upsert, absent for a delete;
 * before its first write it is absent. Let {@code a} be its last acknowledged write. An acknowledged
 * write happened; an unacknowledged one (indeterminate: refused, timed out, lost with its primary,
 * or never covered by a replicated refresh) may or may not have happened, and the final state is
 * the state after the last write that did. So the final state on every node must be the state after
 * {@code a}, or the state after one of the writes that came after {@code a} (all indeterminate); with
 * no acknowledged write, absent or the state after any of its writes. Anything else is a loss: an
 * older revision, absent where {@code a} (or every later write) left it alive, alive where every
 * write from {@code a} on deleted it. A document with no acknowledged write in another state holds
 * a revision nobody wrote for it (unexpected).
 *
 * <p>{@code acknowledged} is what must survive: the write path's acknowledgements less those a
 * full-cluster crash voided ({@link ReplicatedAcks#surviving}).
 *
 * <p>What happened to the indeterminate writes is read from the first node's state: the latest
 * write from {@code a} on whose state it equals is the last one that happened (for an absent
 * document the latest delete, or the start); an indeterminate write after it was lost (allowed), that
 * one was kept, and one between {@code a} and it was superseded (whether it happened is unknowable).
 * Pure: the same inputs give the same result.
 */
final class ReplicatedVerdict {
  private static final int EXAMPLES = 10;

  /**
   * @param acknowledgedLost documents some node ends in a state the rule forbids, although a write of
   *     them was acknowledged
   * @param unexpected documents with no acknowledged write that some node holds at a revision the log
   *     never wrote for them
   * @param indeterminate unacknowledged writes after their document's last acknowledged write (the
   *     only ones the final state can tell anything about: an earlier one is overwritten by an
   *     acknowledged write either way)
   * @param kept indeterminate writes the final state shows as the last that happened
   * @param lost indeterminate writes after the last that happened (or of a document judged lost)
   * @param superseded indeterminate writes before the last that happened, after the acknowledged one
   */
  record Result(Set<String> acknowledgedLost, Set<String> unexpected, long indeterminate, long kept, long lost,
      long superseded, List<String> examples) {}

  private ReplicatedVerdict() {}

  /**
   * Judges every node's final documents ({@code finals}: node id -> id -> revision) against the
   * log's {@code history} (id -> writes in order) and the acknowledged writes.
   */
  static Result judge(Map<String, List<TxLog.Write>> history, LongPredicate acknowledged,
      Map<Integer, Map<String, Long>> finals) {
    Set<String> lostIds = new TreeSet<>();
    Set<String> unexpected = new TreeSet<>();
    List<String> examples = new ArrayList<>();
    Set<String> ids = new HashSet<>(history.keySet());
    for (Map<String, Long> docs : finals.values()) {
      ids.addAll(docs.keySet());
    }
    Map<String, Long> first = finals.isEmpty() ? Map.of() : finals.values().iterator().next();
    long indeterminate = 0;
    long kept = 0;
    long lost = 0;
    long superseded = 0;
    for (String id : ids) {
      List<TxLog.Write> writes = history.getOrDefault(id, List.of());
      int a = lastAcknowledged(writes, acknowledged);
      for (Map.Entry<Integer, Map<String, Long>> node : finals.entrySet()) {
        Long actual = node.getValue().get(id);
        if (lastMatching(writes, a, actual) == NONE) {
          (a >= 0 ? lostIds : unexpected).add(id);
          if (examples.size() < EXAMPLES) {
            examples.add("N" + node.getKey() + " ends with " + id + (actual == null ? " absent" : " at revision " + actual)
                + (a >= 0 ? ", but write " + writes.get(a).seq() + (writes.get(a).delete() ? " (delete)" : " (upsert)")
                    + " was acknowledged" : ", which no write made") + "; its writes: " + describe(writes, acknowledged));
          }
        }
      }
      int last = lastMatching(writes, a, first.get(id));
      for (int j = a + 1; j < writes.size(); j++) {
        indeterminate++;
        if (last == NONE || j > last) {
          lost++;
        } else if (j == last) {
          kept++;
        } else {
          superseded++;
        }
      }
    }
    return new Result(lostIds, unexpected, indeterminate, kept, lost, superseded, List.copyOf(examples));
  }

  private static final int NONE = -2;

  /** Index of the last acknowledged write, or -1 (the start: absent). */
  private static int lastAcknowledged(List<TxLog.Write> writes, LongPredicate acknowledged) {
    for (int i = writes.size() - 1; i >= 0; i--) {
      if (acknowledged.test(writes.get(i).seq())) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The latest index at or after {@code from} (-1: the start) whose state is {@code actual} (null:
   * absent), or {@link #NONE}.
   */
  private static int lastMatching(List<TxLog.Write> writes, int from, Long actual) {
    for (int i = writes.size() - 1; i >= Math.max(from, 0); i--) {
      TxLog.Write w = writes.get(i);
      if (w.delete() ? actual == null : actual != null && actual == w.seq()) {
        return i;
      }
    }
    return from < 0 && actual == null ? -1 : NONE;
  }

  private static String describe(List<TxLog.Write> writes, LongPredicate acknowledged) {
    StringBuilder sb = new StringBuilder();
    int from = Math.max(0, writes.size() - 6);
    if (from > 0) {
      sb.append("... ");
    }
    for (int i = from; i < writes.size(); i++) {
      TxLog.Write w = writes.get(i);
      sb.append(i > from ? ", " : "").append(w.delete() ? "delete@" : "upsert@").append(w.seq())
          .append(acknowledged.test(w.seq()) ? " acked" : "");
    }
    return sb.toString();
  }
}
