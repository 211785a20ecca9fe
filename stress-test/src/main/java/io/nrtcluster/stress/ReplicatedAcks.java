package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which writes a run with replicated durability acknowledged. A write batch the primary accepted is
 * only pending, kept under the primary that took it (node and generation, as its reply named it). It
 * is acknowledged once a later refresh on that same primary, asking for a replicated
 * acknowledgement, succeeded with a log position covering the whole batch: that refresh published
 * everything the primary had taken before it was asked, and returned once every in-sync replica held
 * it. A write no such refresh ever covered (the primary refused, died or was replaced first, or never
 * accepted it) stays indeterminate: it may or may not have happened ({@link ReplicatedVerdict}).
 *
 * <p>The write path guarantees that a refresh's position covers only writes that had finished when
 * it was taken (writes hold the read side of its lock, the position is read under the write side),
 * so every pending batch of that primary at or below the position was accepted before the refresh.
 *
 * <p>A replicated acknowledgement survives any crash as long as one node that held the version keeps
 * running ({@code Durability#REPLICATED}); a full-cluster crash (every node killed at once) keeps only
 * what some node had committed. So each acknowledgement's time is kept, and each commit of the
 * target primary records the highest position acknowledged when it began: every acknowledged write
 * at or below it is in that commit (it was acknowledged before, so the primary held it).
 * {@link #surviving} then voids the acknowledgements a full-cluster crash came after with no commit
 * covering them: those writes are indeterminate, as the library documents, and counted apart.
 */
final class ReplicatedAcks {
  /** The primary that accepted a batch: its node and the generation it led. */
  private record Leader(int nodeId, long gen) {}

  private final Map<Leader, List<long[]>> pending = new HashMap<>();
  private final BitSet acknowledged = new BitSet();
  /** Run-relative millis each acknowledged write was acknowledged at, by sequence number - 1. */
  private long[] acknowledgedAt = new long[1 << 12];
  /** Commits of the target primary: {run-relative millis it answered, position every acknowledgement below it held}. */
  private final List<Commit> commits = new ArrayList<>();

  /** A commit of the target primary: when it answered, and the acknowledged position it holds. */
  private record Commit(long atMillis, long position) {}
  /** The highest position a replicated refresh acknowledged, by the generation that acknowledged it. */
  private final TreeMap<Long, Long> acknowledgedPositions = new TreeMap<>();
  private final EnumMap<RefreshRefusal, Long> refusals = new EnumMap<>(RefreshRefusal.class);
  private long batchesAccepted;
  private long batchesAcknowledged;
  private long refreshesAcknowledged;
  private long refreshesUnattributed;

  /** Node {@code nodeId}, leading generation {@code gen}, accepted {@code ops} (one batch). */
  synchronized void accepted(int nodeId, long gen, List<Op> ops) {
    long[] seqs = new long[ops.size()];
    for (int i = 0; i < seqs.length; i++) {
      seqs[i] = ops.get(i).seq();
    }
    pending.computeIfAbsent(new Leader(nodeId, gen), k -> new ArrayList<>()).add(seqs);
    batchesAccepted++;
  }

  /**
   * A replicated refresh on node {@code nodeId} leading {@code gen} succeeded at log position {@code
   * position}: acknowledges every batch that primary accepted at or below it. Returns how many
   * writes it newly acknowledged.
   */
  synchronized int refreshed(int nodeId, long gen, long position, long atMillis) {
    refreshesAcknowledged++;
    acknowledgedPositions.merge(gen, position, Math::max);
    List<long[]> batches = pending.get(new Leader(nodeId, gen));
    if (batches == null) {
      return 0;
    }
    int writes = 0;
    for (Iterator<long[]> it = batches.iterator(); it.hasNext(); ) {
      long[] seqs = it.next();
      if (max(seqs) <= position) {
        for (long s : seqs) {
          acknowledged.set((int) (s - 1));
          if (s > acknowledgedAt.length) {
            acknowledgedAt = Arrays.copyOf(acknowledgedAt, (int) Math.max(s, acknowledgedAt.length * 2L));
          }
          acknowledgedAt[(int) (s - 1)] = atMillis;
        }
        writes += seqs.length;
        batchesAcknowledged++;
        it.remove();
      }
    }
    return writes;
  }

  /**
   * The highest position a replicated refresh of generation {@code gen} or an older one acknowledged
   * so far (read when a commit of the primary leading {@code gen} begins: it was elected from the
   * in-sync set, so it holds what older generations acknowledged, but not what a newer one did).
   */
  synchronized long acknowledgedPosition(long gen) {
    long p = 0;
    for (long v : acknowledgedPositions.headMap(gen, true).values()) {
      p = Math.max(p, v);
    }
    return p;
  }

  /**
   * The target primary committed, answering at {@code atMillis}; {@code position} is {@link
   * #acknowledgedPosition} from before it began: every write acknowledged up to it is in the commit.
   */
  synchronized void committed(long position, long atMillis) {
    commits.add(new Commit(atMillis, position));
  }

  /**
   * The acknowledged writes that must survive, given the run-relative times of full-cluster crashes
   * (every node killed at once): a write acknowledged before such a crash must also be covered by a
   * commit of the primary that answered before it, otherwise it is voided (indeterminate).
   */
  synchronized Surviving surviving(List<Long> fullCrashMillis) {
    BitSet kept = (BitSet) acknowledged.clone();
    for (int i = acknowledged.nextSetBit(0); i >= 0; i = acknowledged.nextSetBit(i + 1)) {
      long at = acknowledgedAt[i];
      for (long crash : fullCrashMillis) {
        if (at <= crash && committedBy(crash) < i + 1L) {
          kept.clear(i);
          break;
        }
      }
    }
    return new Surviving(kept, acknowledged.cardinality() - kept.cardinality());
  }

  /** The highest position a commit answered by {@code millis} holds every acknowledged write up to. */
  private long committedBy(long millis) {
    long p = 0;
    for (Commit c : commits) {
      if (c.atMillis() <= millis) {
        p = Math.max(p, c.position());
      }
    }
    return p;
  }

  /**
   * The acknowledged writes that must survive, and how many acknowledgements full-cluster crashes voided.
   */
  record Surviving(BitSet writes, long voided) {
    boolean test(long seq) {
      return seq >= 1 && writes.get((int) (seq - 1));
    }
  }

  /** A replicated refresh answered, but the node switched roles during it: nothing is acknowledged. */
  synchronized void unattributed() {
    refreshesUnattributed++;
  }

  synchronized void refused(RefreshRefusal why) {
    refusals.merge(why, 1L, Long::sum);
  }

  synchronized boolean isAcknowledged(long seq) {
    return seq >= 1 && acknowledged.get((int) (seq - 1));
  }

  synchronized long writesAcknowledged() {
    return acknowledged.cardinality();
  }

  synchronized long batchesAccepted() {
    return batchesAccepted;
  }

  synchronized long batchesAcknowledged() {
    return batchesAcknowledged;
  }

  synchronized long refreshesAcknowledged() {
    return refreshesAcknowledged;
  }

  synchronized long refreshesUnattributed() {
    return refreshesUnattributed;
  }

  synchronized long refusedFor(RefreshRefusal why) {
    return refusals.getOrDefault(why, 0L);
  }

  /** The refusals so far, by reason. */
  synchronized ChaosReport.Refusals refusals() {
    return new ChaosReport.Refusals(refusedFor(RefreshRefusal.NOT_ENOUGH_REPLICAS), refusedFor(RefreshRefusal.NOT_PRIMARY),
        refusedFor(RefreshRefusal.NOT_PUBLISHED), refusedFor(RefreshRefusal.TIMEOUT), refusedFor(RefreshRefusal.GIVEN_UP),
        refusedFor(RefreshRefusal.UNREACHABLE), refusedFor(RefreshRefusal.OTHER));
  }

  private static long max(long[] seqs) {
    long m = 0;
    for (long s : seqs) {
      m = Math.max(m, s);
    }
    return m;
  }
}
