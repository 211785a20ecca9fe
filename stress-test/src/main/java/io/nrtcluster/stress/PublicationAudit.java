package io.nrtcluster.stress;

import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.election.PrimaryInfo;
import io.nrtcluster.election.ZkLayout;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.Txn;
import org.apache.zookeeper.txn.TxnHeader;

/**
 * What ZooKeeper itself recorded as published: reads the transaction logs of every server of the
 * run's ensemble (their union holds every committed transaction, since each is logged by a quorum)
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
    TreeMap<Long, Entry> byZxid = new TreeMap<>();
    int files = 0;
    List<Path> logDirs;
    try (Stream<Path> s = Files.walk(zooKeeperDir, 3)) {
      logDirs = s.filter(p -> p.getFileName().toString().equals("version-2") && Files.isDirectory(p)).sorted().toList();
    }
    for (Path dir : logDirs) {
      try (Stream<Path> s = Files.list(dir)) {
        files += (int) s.filter(p -> p.getFileName().toString().startsWith("log.")).count();
      }
      readLog(dir, byZxid);
    }
    // Replay in commit order: which session holds which generation, then what each session published.
    Map<Long, PrimaryInfo> sessionPrimary = new HashMap<>();
    List<Publication> publications = new ArrayList<>();
    for (Entry e : byZxid.values()) {
      for (Op op : e.ops()) {
        if (op.path().equals(layout.primary()) && op.create()) {
          try {
            sessionPrimary.put(e.header().getClientId(), PrimaryInfo.decode(op.data()));
          } catch (ProtocolException bad) {
            throw new IOException("zxid " + Long.toHexString(e.header().getZxid()) + ": " + bad.getMessage(), bad);
          }
        } else if (op.path().equals(layout.maxVersion())) {
          PrimaryInfo by = sessionPrimary.get(e.header().getClientId());
          long version = Long.parseLong(new String(op.data(), StandardCharsets.UTF_8).trim());
          publications.add(new Publication(e.header().getZxid(), e.header().getTime(), by == null ? -1 : by.primaryGen(),
              by == null ? -1 : by.nodeId(), version));
        }
      }
    }
    return new Publications(List.copyOf(publications), files, byZxid.size());
  }

  private record Op(String path, boolean create, byte[] data) {}

  private record Entry(TxnHeader header, List<Op> ops) {}

  private static void readLog(Path dir, TreeMap<Long, Entry> byZxid) throws IOException {
    FileTxnLog log = new FileTxnLog(dir.toFile());
    try (TxnLog.TxnIterator it = log.read(1)) {
      while (it.getHeader() != null) {
        TxnHeader h = it.getHeader();
        if (!byZxid.containsKey(h.getZxid())) {
          List<Op> ops = ops(h.getType(), it.getTxn());
          if (!ops.isEmpty()) {
            byZxid.put(h.getZxid(), new Entry(h, ops));
          }
        }
        try {
          if (!it.next()) {
            break;
          }
        } catch (EOFException truncated) {
          // The server is still writing (or crashed mid-record): what came before is complete.
          break;
        }
      }
    } finally {
      log.close();
    }
  }

  /** The creates and data writes of one transaction (a multi's failed ops are error records and skipped). */
  private static List<Op> ops(int type, Record txn) throws IOException {
    List<Op> ops = new ArrayList<>();
    if (txn instanceof MultiTxn multi) {
      for (Txn t : multi.getTxns()) {
        Record inner = switch (t.getType()) {
          case OpCode.create, OpCode.create2, OpCode.createContainer -> new CreateTxn();
          case OpCode.setData -> new SetDataTxn();
          default -> null;
        };
        if (inner != null) {
          ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(t.getData()), inner);
          add(ops, inner);
        }
      }
    } else {
      add(ops, txn);
    }
    return ops;
  }

  private static void add(List<Op> ops, Record r) {
    if (r instanceof CreateTxn c) {
      ops.add(new Op(c.getPath(), true, c.getData()));
    } else if (r instanceof SetDataTxn d) {
      ops.add(new Op(d.getPath(), false, d.getData()));
    }
  }
}
