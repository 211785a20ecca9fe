package io.nrtcluster.stress;

import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.agent.AgentApi;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.LongPredicate;

/**
 * The end of a run, after writes stopped: brings every node back (resume, restart), lets the write
 * path resync (replaying the log from the primary's replay position, as an application would), makes
 * one last refresh covering the whole log, waits until every node searches it, and compares every
 * node's documents with what the log says must exist. Then commits, stops every node gracefully and
 * audits each index directory; with the object store, restores and checks its newest backup
 * ({@link BackupCheck}).
 *
 * <p>With {@link Durability#REPLICATED} nothing is replayed (the resync only finds the primary), the
 * last refresh must be acknowledged as replicated, and every node's documents are judged by {@link
 * ReplicatedVerdict}: no acknowledged write lost, indeterminate ones in or out.
 */
final class FinalCheck {
  private static final long CONVERGE_MS = 120_000;
  private static final long STOP_MS = 60_000;
  /** Longest the last copies' bit flips may stay pending once the nodes have converged. */
  private static final long FLIPS_SETTLE_MS = 15_000;

  /**
   * @param lost ids whose final write is missing or has another revision on some node
   * @param unexpected ids present on some node that the log leaves deleted
   * @param store the object store's final check; null without a store
   * @param replicated the verdict on acknowledged and indeterminate writes with replicated
   *     durability ({@code lost} and {@code unexpected} are its ids then); null with local durability
   */
  record Outcome(boolean converged, long finalVersion, Set<String> lost, Set<String> unexpected,
      List<IndexAudit.Result> audits, List<String> problems, ChaosReport.StoreCheck store,
      ReplicatedVerdict.Result replicated) {}

  static Outcome run(ChaosConfig config, ChaosCluster cluster, WritePath path, TxLog log, Ledger ledger,
      Observer observer, Consumer<String> out) throws InterruptedException {
    List<String> problems = new ArrayList<>();
    boolean replicatedMode = path.durability() == Durability.REPLICATED;
    out.accept(replicatedMode ? "final check: bringing every node back, one last replicated refresh (no replay)"
        : "final check: bringing every node back, replaying, one last refresh");
    ChaosStore store = cluster.store();
    if (store != null && !store.running()) {
      try {
        store.restart();
      } catch (Exception e) {
        problems.add("object store: could not be started again: " + e);
      }
    }
    for (NodeProcess n : cluster.nodes()) {
      n.resume();
    }
    try {
      cluster.startAll();
    } catch (IOException e) {
      problems.add("could not restart every node: " + e.getMessage());
    }
    for (NodeProcess n : cluster.nodes()) {
      if (n.state() == NodeProcess.State.UP) {
        try {
          n.client().faults(0, 0);
        } catch (AgentException e) {
          problems.add("N" + n.id() + ": wire faults not switched off: " + e.getMessage());
        }
      }
    }
    long finalVersion = -1;
    long deadline = System.nanoTime() + config.recoveryTimeout().toNanos();
    while (finalVersion < 0 && System.nanoTime() < deadline) {
      if (path.awaitClean(1_000)) {
        finalVersion = path.refresh();
      }
    }
    if (finalVersion < 0) {
      problems.add("no primary accepted the final replay and refresh within " + config.recoveryTimeout());
      observer.close();
      List<IndexAudit.Result> audits = stopAndAudit(cluster, problems);
      return new Outcome(false, -1, Set.of(), Set.of(), audits, problems,
          checkStore(config, store, log, ledger, -1, path, out), null);
    }
    boolean converged = awaitVersion(cluster, finalVersion, problems);
    observer.settleFlips(FLIPS_SETTLE_MS);
    Map<String, Long> expected = log.expectedDocuments();
    Set<String> lost = new TreeSet<>();
    Set<String> unexpected = new TreeSet<>();
    Map<Integer, Map<String, Long>> finals = new LinkedHashMap<>();
    for (NodeProcess n : cluster.nodes()) {
      if (n.state() != NodeProcess.State.UP) {
        continue;
      }
      try {
        AgentApi.FingerprintReply f = n.client().fingerprint();
        ledger.contents(n.id(), f.version(), f.numDocs(), f.digest());
        AgentClient.Docs docs = n.client().docs();
        if (docs.version() != finalVersion) {
          problems.add("N" + n.id() + " searched version " + docs.version() + " at the end, not " + finalVersion);
        }
        if (replicatedMode) {
          finals.put(n.id(), docs.revisions());
          continue;
        }
        for (Map.Entry<String, Long> e : expected.entrySet()) {
          Long actual = docs.revisions().get(e.getKey());
          if (!e.getValue().equals(actual)) {
            lost.add(e.getKey());
          }
        }
        for (String id : docs.revisions().keySet()) {
          if (!expected.containsKey(id)) {
            unexpected.add(id);
          }
        }
      } catch (AgentException e) {
        problems.add("N" + n.id() + ": final documents unreadable: " + e.getMessage());
        converged = false;
      }
    }
    ReplicatedVerdict.Result verdict = null;
    if (replicatedMode) {
      ReplicatedAcks acked = path.replicated();
      ReplicatedAcks.Surviving surviving = path.surviving();
      verdict = ReplicatedVerdict.judge(log.history(), surviving::test, finals);
      lost.addAll(verdict.acknowledgedLost());
      unexpected.addAll(verdict.unexpected());
      problems.addAll(verdict.examples());
      out.accept(String.format(Locale.ROOT, "final check: version %d, %d writes acknowledged (replicated), %d indeterminate "
          + "(%d kept, %d lost, %d superseded; %d acknowledgements voided by full-cluster crashes); %d documents with an "
          + "acknowledged write lost, %d unexpected", finalVersion, acked.writesAcknowledged(), verdict.indeterminate(), verdict.kept(), verdict.lost(), verdict.superseded(),
          surviving.voided(), lost.size(), unexpected.size()));
    } else {
      out.accept(String.format(Locale.ROOT, "final check: version %d, %d documents expected, %d lost, %d unexpected",
          finalVersion, expected.size(), lost.size(), unexpected.size()));
    }
    path.commitAll();
    observer.close();
    List<IndexAudit.Result> audits = stopAndAudit(cluster, problems);
    return new Outcome(converged, finalVersion, lost, unexpected, audits, problems,
        checkStore(config, store, log, ledger, finalVersion, path, out), verdict);
  }

  private static ChaosReport.StoreCheck checkStore(ChaosConfig config, ChaosStore store, TxLog log, Ledger ledger,
      long finalVersion, WritePath path, Consumer<String> out) throws InterruptedException {
    if (store == null) {
      return null;
    }
    // With replicated durability a backup must hold the acknowledged writes up to its position; the others may be gone.
    LongPredicate required = path.durability() == Durability.REPLICATED
        ? path.surviving()::test : seq -> true;
    ChaosReport.StoreCheck c = BackupCheck.run(store, config.reportDir(), log, ledger, finalVersion, path.commits(), required);
    out.accept(String.format(Locale.ROOT, "final check: object store holds %d backups; the newest (version %d, %d documents, "
        + "replay position %d) %s, %d documents disagree with the log", c.backups(), c.version(), c.numDocs(),
        c.replayPosition(), c.restored() ? "restored, every byte verified" : "did NOT restore", c.inconsistencies()));
    return c;
  }

  private static boolean awaitVersion(ChaosCluster cluster, long version, List<String> problems) {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(CONVERGE_MS);
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (NodeProcess n : cluster.nodes()) {
        try {
          all &= n.state() == NodeProcess.State.UP && n.client().status().version() >= version;
        } catch (AgentException e) {
          all = false;
        }
      }
      if (all) {
        return true;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
    problems.add("not every node searched the final version " + version + " within " + CONVERGE_MS + " ms");
    return false;
  }

  private static List<IndexAudit.Result> stopAndAudit(ChaosCluster cluster, List<String> problems) {
    try {
      Parallel.forEach(cluster.nodes(), "chaos-stop", n -> {
        if (!n.stopGracefully(STOP_MS)) {
          synchronized (problems) {
            problems.add("N" + n.id() + " did not leave gracefully within " + STOP_MS + " ms (killed)");
          }
        }
      });
    } catch (IOException e) {
      problems.add("stopping the nodes failed: " + e.getMessage());
    }
    List<IndexAudit.Result> audits = new ArrayList<>();
    for (NodeProcess n : cluster.nodes()) {
      audits.add(IndexAudit.audit(n.id(), n.dir().resolve(ChaosCluster.INDEX).resolve("index")));
    }
    return audits;
  }
}
