package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Figure 6's acknowledged loss: for each {@link Durability}, the primary acknowledges a few batches
 * of documents with refreshes of that level and is killed ({@code kill -9}) as soon as the last
 * acknowledgement reaches the harness; once another node acknowledges a write, it is asked how many
 * of the acknowledged documents it searches. LOCAL may lose the last batches (nobody had to copy
 * them); REPLICATED must lose none.
 */
final class AckLossFigure {
  private static final Logger LOG = LoggerFactory.getLogger(AckLossFigure.class);
  /** Acknowledged refreshes before each kill. */
  static final int BATCHES = 5;
  static final int DOCS_PER_BATCH = 20;
  /** At most this many kills per level (fewer when the run asks for fewer failovers). */
  static final int MAX_KILLS = 5;

  private AckLossFigure() {}

  static List<BenchReport.AckLoss> run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    int kills = Math.min(config.failovers(), MAX_KILLS);
    List<BenchReport.AckLoss> result = new ArrayList<>();
    for (Durability durability : Durability.values()) {
      List<Long> lost = new ArrayList<>();
      long acknowledged = 0;
      long refused = 0;
      for (int i = 0; i < kills; i++) {
        NodeProcess old = nodes.primary();
        nodes.awaitVersion(BenchNodes.client(old).status().version());
        String run = "loss-" + durability.name().toLowerCase(Locale.ROOT) + "-" + i + "-";
        List<String> batches = new ArrayList<>();
        for (int b = 0; b < BATCHES; b++) {
          String prefix = run + "b" + b + "-";
          try {
            BenchNodes.client(old).ackBatch(prefix, DOCS_PER_BATCH, durability);
            batches.add(prefix);
          } catch (AgentException e) {
            // Not acknowledged (for REPLICATED: too few in-sync replicas), so not counted as lost either.
            refused++;
            LOG.info("figure 6: batch {} of N{} not acknowledged: {}", prefix, old.id(), e.getMessage());
          }
        }
        old.kill();
        FailoverFigure.Taken t = FailoverFigure.awaitTakeover(nodes, old, System.nanoTime());
        long missing = 0;
        for (String prefix : batches) {
          missing += Math.max(0, DOCS_PER_BATCH - BenchNodes.client(t.next()).countIds(prefix).count());
        }
        acknowledged += (long) batches.size() * DOCS_PER_BATCH;
        lost.add(missing);
        out.accept(String.format(Locale.ROOT, "bench: figure 6, %s: kill -9 of N%d right after %d acknowledged batches: "
            + "N%d, the new primary, lacks %d of their %d documents", durability, old.id(), batches.size(), t.next().id(),
            missing, batches.size() * DOCS_PER_BATCH));
        BenchNodes.start(old);
        BenchNodes.awaitRole(old, Role.REPLICA);
        nodes.awaitVersion(BenchNodes.client(t.next()).status().version());
      }
      long total = lost.stream().mapToLong(Long::longValue).sum();
      result.add(new BenchReport.AckLoss(durability.name(), kills, BATCHES, DOCS_PER_BATCH, acknowledged, total,
          List.copyOf(lost), "each kill: " + BATCHES + " refreshes of " + DOCS_PER_BATCH + " new documents acknowledged "
          + "with " + durability + " (" + refused + " over all kills not acknowledged, not counted), kill -9 of the "
          + "primary as the last acknowledgement arrived, then the acknowledged documents the new primary does not "
          + "search once it acknowledges a write"));
      table.text("acknowledged docs lost per failover, " + durability + " (" + kills + " kills)",
          total + " of " + acknowledged, "", String.format(Locale.ROOT, "%.1f / kill", (double) total / kills),
          durability == Durability.REPLICATED ? (total == 0 ? "0 met" : "0 missed") : "> 0 possible");
    }
    return List.copyOf(result);
  }
}
