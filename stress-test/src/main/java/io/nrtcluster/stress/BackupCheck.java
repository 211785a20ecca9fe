package io.nrtcluster.stress;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.common.ReplayPositions;
import io.nrtcluster.objectstore.Manifest;
import io.nrtcluster.objectstore.BackupNotFoundException;
import io.nrtcluster.objectstore.BackupVerifier;
import io.nrtcluster.objectstore.ManifestId;
import io.nrtcluster.objectstore.VerifyReport;
import io.nrtcluster.objectstore.Restorer;
import io.nrtcluster.stress.agent.ChaosDocs;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongPredicate;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.slf4j.LoggerFactory;

/**
 * The final check of the object store, once every node has left: the newest backup is restored into
 * an empty directory of the report ({@code store-restore/}) by {@link Restorer}, which verifies every
 * byte against Lucene's checksums, and opened. Then it must be at the version its manifest names and
 * at most the run's final version, agree with any node that searched that version (the {@link Ledger},
 * as node 0), and hold every write of the log up to the replay position it records and nothing the
 * log never wrote ({@link TxLog#inconsistencies}; so it is not empty when the writes it covers are
 * not). With replicated durability only the acknowledged writes up to that position must be held
 * ({@code required}): the harness replays nothing, so a write no replicated refresh covered may be
 * missing from every later point. A store with no backup although commits were made is a problem
 * too. Every failure is one of the result's problems.
 */
final class BackupCheck {
  /** The {@link Ledger}'s node id of the restored backup. */
  static final int STORE_NODE = 0;
  private static final int EXAMPLES = 10;
  private static final long LIST_TRIES = 20;

  private BackupCheck() {}

  static ChaosReport.StoreCheck run(ChaosStore store, Path dir, TxLog log, Ledger ledger, long finalVersion,
      long commits, LongPredicate required) throws InterruptedException {
    List<String> problems = new ArrayList<>();
    if (!store.running()) {
      try {
        store.restart();
      } catch (Exception e) {
        problems.add("object store: could not be started for the final check: " + e);
        return new ChaosReport.StoreCheck(-1, -1, -1, 0, 0, false, -1, -1, 0, 0, problems);
      }
    }
    List<ManifestId> manifests = null;
    for (int i = 0; i < LIST_TRIES && manifests == null; i++) {
      try {
        manifests = store.manifests().list();
      } catch (IOException | RuntimeException e) {
        if (i == LIST_TRIES - 1) {
          problems.add("object store: backups could not be listed: " + e);
          return new ChaosReport.StoreCheck(-1, -1, -1, 0, 0, false, -1, -1, 0, 0, problems);
        }
        TimeUnit.MILLISECONDS.sleep(250);
      }
    }
    if (manifests.isEmpty()) {
      if (commits > 0 && log.acknowledged() > 0) {
        problems.add("object store: no backup at all, although " + commits + " commits of acknowledged writes were made");
      }
      return new ChaosReport.StoreCheck(0, -1, -1, 0, 0, false, -1, -1, 0, 0, problems);
    }
    int intact = verifyAll(store, manifests, problems);
    ManifestId newest = manifests.get(manifests.size() - 1);
    Path target = dir.resolve("store-restore");
    try (Restorer restorer = new Restorer(store.manifests(),
        new NodeLog(LoggerFactory.getLogger(BackupCheck.class), "final-check", () -> -1));
        Directory out = FSDirectory.open(Files.createDirectories(target))) {
      Manifest m = restorer.restore(newest, out);
      try (DirectoryReader reader = DirectoryReader.open(out)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        ChaosDocs.Fingerprint f = ChaosDocs.fingerprint(searcher);
        if (f.version() != m.version()) {
          problems.add("object store: backup " + newest.key() + " of version " + m.version() + " opened at version "
              + f.version());
        }
        if (finalVersion >= 0 && m.version() > finalVersion) {
          problems.add("object store: the newest backup is at version " + m.version() + ", above the run's final version "
              + finalVersion);
        }
        ledger.contents(STORE_NODE, f.version(), f.numDocs(), f.digest());
        String position = reader.getIndexCommit().getUserData().get(ReplayPositions.KEY);
        long replay = position == null ? -1 : Long.parseLong(position);
        Map<String, Long> revisions = ChaosDocs.revisions(searcher);
        TxLog.Disagreement d = log.inconsistencies(revisions, replay, EXAMPLES, required);
        if (d.count() > 0) {
          problems.add("object store: " + d.count() + " documents of the newest backup (version " + m.version()
              + ", replay position " + replay + ") disagree with the log: " + d.examples());
        }
        return new ChaosReport.StoreCheck(manifests.size(), m.version(), m.primaryGen(), m.files().size(),
            m.totalBytes(), true, f.numDocs(), replay, d.count(), intact, problems);
      }
    } catch (IOException | RuntimeException e) {
      problems.add("object store: the newest backup " + newest.key() + " did not restore and open: " + e);
      return new ChaosReport.StoreCheck(manifests.size(), newest.version(), newest.primaryGen(), 0, 0, false, -1, -1, 0, intact, problems);
    }
  }

  /**
   * Rereads every backup left at the end ({@link BackupVerifier}: every object each manifest names,
   * length and checksum): retention racing backups, store restarts and rebuilds must have left every
   * kept manifest whole. Returns how many were intact; each damaged object is a problem.
   */
  private static int verifyAll(ChaosStore store, List<ManifestId> manifests, List<String> problems) {
    BackupVerifier verifier = new BackupVerifier(store.manifests(), BackupVerifier.UNLIMITED);
    int intact = 0;
    for (ManifestId id : manifests) {
      try {
        VerifyReport r = verifier.verify(id);
        if (r.intact()) {
          intact++;
        } else {
          problems.add("object store: backup " + id.key() + " is damaged: " + r.damage());
        }
      } catch (BackupNotFoundException gone) {
        problems.add("object store: backup " + id.key() + " vanished during the final check");
      } catch (IOException | RuntimeException e) {
        problems.add("object store: backup " + id.key() + " could not be verified: " + e);
      }
    }
    return intact;
  }
}
