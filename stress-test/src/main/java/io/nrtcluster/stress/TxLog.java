package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi.Kind;
import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.LongPredicate;

/**
 * The harness's transaction log: every write it ever attempted, in order, with whether a primary
 * acknowledged it. Sequence numbers start at 1 and are the replay positions the harness gives with
 * each refresh; a document's revision is the sequence number of the upsert that wrote it. Bodies are
 * not stored: they are a pure function of the seed and the sequence number.
 */
final class TxLog {
  private static final String[] WORDS = {
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima",
    "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey",
    "xray", "yankee", "zulu", "amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "island",
    "jungle", "karst", "lagoon", "meadow", "nebula"};
  private final long seed;
  private int[] ids = new int[1 << 16];
  private final BitSet deletes = new BitSet();
  private final BitSet acked = new BitSet();
  private int size;

  TxLog(long seed) {
    this.seed = seed;
  }

  /** The words bodies are made of: what searchers query. */
  static List<String> words() {
    return List.of(WORDS);
  }

  /** Appends a write and returns it with its sequence number. */
  synchronized Op append(Kind kind, int id) {
    if (size == ids.length) {
      ids = Arrays.copyOf(ids, size * 2);
    }
    ids[size] = id;
    if (kind == Kind.DELETE) {
      deletes.set(size);
    }
    size++;
    return op(size);
  }

  /** Sequence number of the last write appended (0 when none). */
  synchronized long lastSeq() {
    return size;
  }

  /** Writes after {@code seq}, in order. */
  synchronized List<Op> after(long seq) {
    List<Op> out = new ArrayList<>();
    for (long s = Math.max(seq, 0) + 1; s <= size; s++) {
      out.add(op(s));
    }
    return out;
  }

  synchronized void acknowledge(List<Op> ops) {
    for (Op op : ops) {
      acked.set((int) (op.seq() - 1));
    }
  }

  synchronized long attempted() {
    return size;
  }

  synchronized long acknowledged() {
    return acked.cardinality();
  }

  /** Whether write {@code seq} was ever acknowledged by a primary. */
  synchronized boolean isAcknowledged(long seq) {
    return acked.get((int) (seq - 1));
  }

  /** The state every node must end in: id -> revision of each document the whole log leaves alive. */
  synchronized Map<String, Long> expectedDocuments() {
    Map<String, Long> live = new HashMap<>();
    for (int i = 0; i < size; i++) {
      String id = docId(ids[i]);
      if (deletes.get(i)) {
        live.remove(id);
      } else {
        live.put(id, (long) i + 1);
      }
    }
    return live;
  }

  /** The last write of each document id: id -> sequence number. */
  synchronized Map<String, Long> lastWrites() {
    Map<String, Long> last = new HashMap<>();
    for (int i = 0; i < size; i++) {
      last.put(docId(ids[i]), (long) i + 1);
    }
    return last;
  }

  /**
   * How the documents of a point whose replay position is {@code position} ({@code revisions}: id ->
   * revision of each live document) disagree with the log. The point must hold every write up to the
   * position: a document's revision at least the last write of it up there, and a document the log
   * has alive there gone only if a later write deleted it. Writes after the position may be in or
   * not. Every revision must be an upsert of that very document in the log. Returns how many
   * documents disagree and up to {@code max} of them described.
   */
  synchronized Disagreement inconsistencies(Map<String, Long> revisions, long position, int max) {
    return inconsistencies(revisions, position, max, seq -> true);
  }

  /**
   * {@link #inconsistencies(Map, long, int)} where only the writes up to the position that {@code
   * required} accepts must be held (a run with replicated durability requires its acknowledged
   * writes; the others may or may not have happened): a document's revision must then be at or
   * after the last required write of it up there, and a document that write left alive may be gone
   * only if some later write (required or not, up to the position or after) deleted it.
   */
  synchronized Disagreement inconsistencies(Map<String, Long> revisions, long position, int max,
      LongPredicate required) {
    int upTo = (int) Math.min(Math.max(position, 0), size);
    Map<String, Integer> last = new HashMap<>();
    for (int i = 0; i < upTo; i++) {
      if (required.test(i + 1L)) {
        last.put(docId(ids[i]), i);
      }
    }
    // Per document, the last delete in the whole log: a required upsert may be gone only if one follows it.
    Map<String, Integer> lastDelete = new HashMap<>();
    for (int i = deletes.nextSetBit(0); i >= 0 && i < size; i = deletes.nextSetBit(i + 1)) {
      lastDelete.put(docId(ids[i]), i);
    }
    List<String> out = new ArrayList<>();
    long count = 0;
    for (Map.Entry<String, Long> e : revisions.entrySet()) {
      long rev = e.getValue();
      String problem = null;
      if (rev < 1 || rev > size || !docId(ids[(int) rev - 1]).equals(e.getKey()) || deletes.get((int) rev - 1)) {
        problem = e.getKey() + " at revision " + rev + ", which the log never wrote for it";
      } else {
        Integer covered = last.get(e.getKey());
        if (covered != null && rev < covered + 1) {
          problem = e.getKey() + " at revision " + rev + ", older than write " + (covered + 1) + " the position covers";
        }
      }
      if (problem != null) {
        count++;
        if (out.size() < max) {
          out.add(problem);
        }
      }
    }
    for (Map.Entry<String, Integer> e : last.entrySet()) {
      Integer deletedAt = lastDelete.get(e.getKey());
      boolean deletedSince = deletedAt != null && deletedAt >= e.getValue();
      if (!revisions.containsKey(e.getKey()) && !deletedSince) {
        count++;
        if (out.size() < max) {
          out.add(e.getKey() + " missing, although write " + (e.getValue() + 1) + " the position covers upserted it");
        }
      }
    }
    return new Disagreement(count, List.copyOf(out));
  }

  /** One write of a document: its sequence number, and whether it deleted the document. */
  record Write(long seq, boolean delete) {}

  /** Every document's writes, in log order: id -> writes. */
  synchronized Map<String, List<Write>> history() {
    Map<String, List<Write>> out = new HashMap<>();
    for (int i = 0; i < size; i++) {
      out.computeIfAbsent(docId(ids[i]), k -> new ArrayList<>()).add(new Write(i + 1L, deletes.get(i)));
    }
    return out;
  }

  /** Documents of a point that disagree with the log: how many, and the first ones described. */
  record Disagreement(long count, List<String> examples) {}

  static String docId(int id) {
    return "d" + id;
  }

  private Op op(long seq) {
    int i = (int) (seq - 1);
    boolean delete = deletes.get(i);
    return new Op(seq, delete ? Kind.DELETE : Kind.UPSERT, docId(ids[i]), delete ? null : body(seq));
  }

  private String body(long seq) {
    SplittableRandom r = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + seq);
    int n = 4 + r.nextInt(12);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        sb.append(' ');
      }
      // Skewed towards the first words, so some terms match many documents and some few.
      int w = (int) (WORDS.length * Math.pow(r.nextDouble(), 2));
      sb.append(WORDS[w]);
    }
    return sb.toString();
  }
}
