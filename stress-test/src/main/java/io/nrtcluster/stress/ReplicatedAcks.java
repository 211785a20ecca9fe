package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi.Op;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

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
 */
final class ReplicatedAcks {
  /** The primary that accepted a batch: its node and the generation it led. */
  private record Leader(int nodeId, long gen) {}

  private final Map<Leader, List<long[]>> pending = new HashMap<>();
  private final BitSet acknowledged = new BitSet();
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
  synchronized int refreshed(int nodeId, long gen, long position) {
    refreshesAcknowledged++;
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
        }
        writes += seqs.length;
        batchesAcknowledged++;
        it.remove();
      }
    }
    return writes;
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
