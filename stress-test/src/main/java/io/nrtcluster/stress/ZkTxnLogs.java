package io.nrtcluster.stress;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.jute.Record;
import org.apache.zookeeper.ZooDefs.OpCode;
import org.apache.zookeeper.server.ByteBufferInputStream;
import org.apache.zookeeper.server.persistence.FileTxnLog;
import org.apache.zookeeper.server.persistence.TxnLog;
import org.apache.zookeeper.txn.CheckVersionTxn;
import org.apache.zookeeper.txn.CreateContainerTxn;
import org.apache.zookeeper.txn.CreateTTLTxn;
import org.apache.zookeeper.txn.CreateTxn;
import org.apache.zookeeper.txn.DeleteTxn;
import org.apache.zookeeper.txn.ErrorTxn;
import org.apache.zookeeper.txn.MultiTxn;
import org.apache.zookeeper.txn.SetDataTxn;
import org.apache.zookeeper.txn.TxnHeader;

/**
 * What ZooKeeper itself logged: every committed transaction in the logs of a run's servers, each
 * once, in zxid order, with the znodes its operations touched. Read by the chaos test's audit of
 * publications and by the benchmark's count of ZooKeeper writes.
 *
 * <p>Guarantees: the union of every server's log under the directory (each transaction is logged by
 * a quorum, so the union holds every committed one); a record cut short at the end of a log (a server
 * still writing, or one that crashed mid-record) ends that log's reading, and what came before is
 * complete. A transaction that commits has a zxid even when it changed nothing (a multi whose check
 * failed is logged as {@link OpKind#ERROR} operations).
 */
public final class ZkTxnLogs {
  /** What one operation of a transaction did. */
  public enum OpKind {
    CREATE,
    SET_DATA,
    DELETE,
    /** A version check of a multi: writes nothing. */
    CHECK,
    /** An operation of a failed multi: writes nothing. */
    ERROR,
    /** Anything else (an ACL change, ...). */
    OTHER
  }

  /** One operation: its kind, the znode (null when the log does not name one) and the data written (creates and sets). */
  public record Op(OpKind kind, String path, byte[] data) {}

  /**
   * One committed transaction.
   *
   * @param type the header's {@link OpCode} ({@code multi}, {@code setData}, {@code createSession}, ...)
   * @param sessionId the session that asked for it
   * @param ops its operations (one for a single-znode write; none for session open and close)
   */
  public record Txn(long zxid, long timeMillis, long sessionId, int type, List<Op> ops) {}

  private ZkTxnLogs() {}

  /** Every transaction with {@code fromZxid <= zxid <= toZxid} in the logs under {@code zooKeeperDir} (any depth up to 3). */
  public static List<Txn> read(Path zooKeeperDir, long fromZxid, long toZxid) throws IOException {
    TreeMap<Long, Txn> byZxid = new TreeMap<>();
    for (Path dir : logDirs(zooKeeperDir)) {
      readLog(dir, fromZxid, toZxid, byZxid);
    }
    return List.copyOf(byZxid.values());
  }

  /** How many log files lie under {@code zooKeeperDir}. */
  public static int logFiles(Path zooKeeperDir) throws IOException {
    int files = 0;
    for (Path dir : logDirs(zooKeeperDir)) {
      try (Stream<Path> s = Files.list(dir)) {
        files += (int) s.filter(p -> p.getFileName().toString().startsWith("log.")).count();
      }
    }
    return files;
  }

  private static List<Path> logDirs(Path zooKeeperDir) throws IOException {
    try (Stream<Path> s = Files.walk(zooKeeperDir, 3)) {
      return s.filter(p -> p.getFileName().toString().equals("version-2") && Files.isDirectory(p)).sorted().toList();
    }
  }

  private static void readLog(Path dir, long fromZxid, long toZxid, TreeMap<Long, Txn> byZxid) throws IOException {
    FileTxnLog log = new FileTxnLog(dir.toFile());
    try (TxnLog.TxnIterator it = log.read(Math.max(1, fromZxid))) {
      while (it.getHeader() != null) {
        TxnHeader h = it.getHeader();
        if (h.getZxid() > toZxid) {
          break;
        }
        if (h.getZxid() >= fromZxid && !byZxid.containsKey(h.getZxid())) {
          byZxid.put(h.getZxid(), new Txn(h.getZxid(), h.getTime(), h.getClientId(), h.getType(), ops(it.getTxn())));
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

  private static List<Op> ops(Record txn) throws IOException {
    List<Op> ops = new ArrayList<>();
    if (txn instanceof MultiTxn multi) {
      for (org.apache.zookeeper.txn.Txn t : multi.getTxns()) {
        Record inner = switch (t.getType()) {
          case OpCode.create, OpCode.create2 -> new CreateTxn();
          case OpCode.createContainer -> new CreateContainerTxn();
          case OpCode.createTTL -> new CreateTTLTxn();
          case OpCode.setData -> new SetDataTxn();
          case OpCode.delete, OpCode.deleteContainer -> new DeleteTxn();
          case OpCode.check -> new CheckVersionTxn();
          default -> null;
        };
        if (inner != null) {
          ByteBufferInputStream.byteBuffer2Record(ByteBuffer.wrap(t.getData()), inner);
          ops.add(op(inner));
        } else {
          ops.add(new Op(t.getType() == OpCode.error ? OpKind.ERROR : OpKind.OTHER, null, null));
        }
      }
    } else if (txn != null) {
      Op op = op(txn);
      if (op.kind() != OpKind.OTHER || op.path() != null) {
        ops.add(op);
      }
    }
    return List.copyOf(ops);
  }

  private static Op op(Record r) {
    return switch (r) {
      case CreateTxn c -> new Op(OpKind.CREATE, c.getPath(), c.getData());
      case CreateContainerTxn c -> new Op(OpKind.CREATE, c.getPath(), c.getData());
      case CreateTTLTxn c -> new Op(OpKind.CREATE, c.getPath(), c.getData());
      case SetDataTxn d -> new Op(OpKind.SET_DATA, d.getPath(), d.getData());
      case DeleteTxn d -> new Op(OpKind.DELETE, d.getPath(), null);
      case CheckVersionTxn c -> new Op(OpKind.CHECK, c.getPath(), null);
      case ErrorTxn e -> new Op(OpKind.ERROR, null, null);
      default -> new Op(OpKind.OTHER, null, null);
    };
  }
}
