package io.nrtcluster.stress;

import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.ZkLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What ZooKeeper itself recorded as published: reads the transaction logs of every server of the
 * run's ensemble ({@link ZkTxnLogs}: their union holds every committed transaction)
 * and finds each write of the index's {@code maxVersion} znode, attributed to the primary generation
 * whose session wrote it (the session that created the primary znode with that generation). Nothing
 * the nodes say about themselves is trusted: a node that acknowledges a version this audit does not
 * find acknowledged a version it never published.
 */
final class PublicationAudit {
  /** One recorded publication: {@code gen} raised maxVersion to {@code version} at {@code timeMillis}. */
  record Publication(long zxid, long timeMillis, long gen, int nodeId, long version) {}

  /** Every publication in zxid order, and the log files read. */
  record Publications(List<Publication> all, int logFiles, long transactions) {
    /**
     * Whether generation {@code gen} had published exactly {@code version} at or before {@code
     * atMillis}. Every version a primary acknowledges was published by it: the one it opened at
     * (published at promotion) and each one a refresh made; a refresh with nothing new answers one
     * of those again.
     */
    boolean publishedBy(long gen, long version, long atMillis) {
      for (Publication p : all) {
        if (p.gen() == gen && p.version() == version && p.timeMillis() <= atMillis) {
          return true;
        }
      }
      return false;
    }

    /** Whether any generation had published exactly {@code version} at or before {@code atMillis}. */
    boolean publishedByAny(long version, long atMillis) {
      for (Publication p : all) {
        if (p.version() == version && p.timeMillis() <= atMillis) {
          return true;
        }
      }
      return false;
    }

    /** What {@code gen} published nearest to {@code version} ("version@millis"), for a report's example. */
    String near(long gen, long version) {
      Publication below = null;
      Publication above = null;
      for (Publication p : all) {
        if (p.gen() == gen && p.version() <= version && (below == null || p.version() > below.version())) {
          below = p;
        }
        if (p.gen() == gen && p.version() >= version && (above == null || p.version() < above.version())) {
          above = p;
        }
      }
      return "gen " + gen + " published " + (below == null ? "nothing below" : below.version() + "@" + below.timeMillis())
          + " and " + (above == null ? "nothing above" : above.version() + "@" + above.timeMillis());
    }

    /** Publications of one version number by more than one generation (never: maxVersion only grows). */
    long versionsPublishedTwice() {
      Map<Long, Long> genOf = new HashMap<>();
      long twice = 0;
      for (Publication p : all) {
        Long before = genOf.putIfAbsent(p.version(), p.gen());
        if (before != null && before != p.gen()) {
          twice++;
        }
      }
      return twice;
    }
  }

  private PublicationAudit() {}

  /** Reads the logs under {@code zooKeeperDir} (one {@code zk<i>/version-2} per server). */
  static Publications read(Path zooKeeperDir, String cluster, String index) throws IOException {
    ZkLayout layout = ZkLayout.of(cluster, index);
    // Replay in commit order: which session holds which generation, then what each session published.
    Map<Long, PrimaryInfo> sessionPrimary = new HashMap<>();
    List<Publication> publications = new ArrayList<>();
    long transactions = 0;
    for (ZkTxnLogs.Txn t : ZkTxnLogs.read(zooKeeperDir, 1, Long.MAX_VALUE)) {
      List<ZkTxnLogs.Op> writes = t.ops().stream()
          .filter(op -> op.kind() == ZkTxnLogs.OpKind.CREATE || op.kind() == ZkTxnLogs.OpKind.SET_DATA).toList();
      transactions += writes.isEmpty() ? 0 : 1;
      for (ZkTxnLogs.Op op : writes) {
        if (op.path().equals(layout.primary()) && op.kind() == ZkTxnLogs.OpKind.CREATE) {
          try {
            sessionPrimary.put(t.sessionId(), PrimaryInfo.decode(op.data()));
          } catch (ProtocolException bad) {
            throw new IOException("zxid " + Long.toHexString(t.zxid()) + ": " + bad.getMessage(), bad);
          }
        } else if (op.path().equals(layout.maxVersion())) {
          PrimaryInfo by = sessionPrimary.get(t.sessionId());
          long version = Long.parseLong(new String(op.data(), StandardCharsets.UTF_8).trim());
          publications.add(new Publication(t.zxid(), t.timeMillis(), by == null ? -1 : by.primaryGen(),
              by == null ? -1 : by.nodeId(), version));
        }
      }
    }
    return new Publications(List.copyOf(publications), ZkTxnLogs.logFiles(zooKeeperDir), transactions);
  }
}
