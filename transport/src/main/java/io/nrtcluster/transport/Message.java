package io.nrtcluster.transport;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.Internal;
import java.util.Map;
import java.util.Set;

/**
 * Every message of the replication protocol. Each carries a request id: requests carry an id chosen
 * by their sender; replies, file data and progress carry the id of the request they answer, so many
 * requests share one connection. See {@code docs/protocol.md} for the byte layout.
 */
@Internal
public sealed interface Message
    permits Message.Hello,
        Message.HelloOk,
        Message.ErrorReply,
        Message.Ack,
        Message.Ping,
        Message.GetCopyState,
        Message.CopyStateReply,
        Message.ReleaseCopyState,
        Message.FetchFile,
        Message.FileHeader,
        FileChunk,
        FileRegionChunk,
        Message.Credit,
        Message.Cancel,
        Message.NrtPoint,
        Message.NrtPointCopyState,
        Message.NewReplica,
        Message.Installed,
        Message.CopySource,
        Message.PreCopyMerge,
        Message.PreCopyProgress,
        Message.PreCopyDone,
        Message.ReportCorruptFile,
        Message.FileVerdict {

  /** The request this message is, or answers. */
  long requestId();

  /** First message on every connection, from the connecting side. */
  record Hello(
      long requestId,
      int protocolVersion,
      String cluster,
      String index,
      int nodeId,
      PeerRole role)
      implements Message {}

  /** Handshake accepted; says who the server is and its current primary generation (or -1). */
  record HelloOk(long requestId, int nodeId, long primaryGen, PeerRole role) implements Message {}

  /** A typed failure of one request, or of the whole connection when {@code requestId == 0}. */
  record ErrorReply(long requestId, ErrorCode code, String message) implements Message {}

  /** Success reply without payload. */
  record Ack(long requestId) implements Message {}

  /** Liveness probe, answered with {@link Ack}. */
  record Ping(long requestId) implements Message {}

  /** Replica asks the primary for its current NRT point; the reply holds it until released. */
  record GetCopyState(long requestId, int replicaId) implements Message {}

  /**
   * A point-in-time of the primary: serialized {@code SegmentInfos} and metadata of every file it
   * references, and the application's replay position of that point (null when none was given).
   * The primary keeps these files until {@link ReleaseCopyState} or disconnect.
   */
  record CopyStateReply(
      long requestId,
      long copyStateId,
      long primaryGen,
      long version,
      long gen,
      byte[] infosBytes,
      Map<String, FileMeta> files,
      Set<String> completedMergeFiles,
      String replayPosition)
      implements Message {

    /** A copy-state without a replay position. */
    public CopyStateReply(long requestId, long copyStateId, long primaryGen, long version, long gen, byte[] infosBytes,
        Map<String, FileMeta> files, Set<String> completedMergeFiles) {
      this(requestId, copyStateId, primaryGen, version, gen, infosBytes, files, completedMergeFiles, null);
    }
  }

  /** Replica is done with a copy-state (copied, failed or cancelled). */
  record ReleaseCopyState(long requestId, long copyStateId) implements Message {}

  /**
   * What a fetched file belongs to: a held copy-state or a running merge pre-copy (asked of the
   * primary), or a file a peer replica installed (protocol version 4; {@code sourceId} is then the
   * file's expected Lucene checksum, which the peer compares with its own copy's footer).
   */
  enum SourceKind {
    COPY_STATE(1),
    MERGE_PRECOPY(2),
    PEER(3);

    final byte wire;

    SourceKind(int wire) {
      this.wire = (byte) wire;
    }
  }

  /**
   * Stream one file from {@code offset} to its end. The sender may have at most {@code windowBytes}
   * unacknowledged bytes in flight; the receiver grants more with {@link Credit}.
   */
  record FetchFile(
      long requestId, SourceKind sourceKind, long sourceId, String name, long offset, int windowBytes)
      implements Message {}

  /** First reply to {@link FetchFile}: the file's full length and the offset streaming starts at. */
  record FileHeader(long requestId, long length, long offset) implements Message {}

  /** Receiver of a file stream consumed {@code bytes} more bytes of request {@code requestId}. */
  record Credit(long requestId, int bytes) implements Message {}

  /** Receiver no longer wants the stream or reply of request {@code requestId}. */
  record Cancel(long requestId) implements Message {}

  /** Primary published a new NRT point (one-way, no reply). */
  record NrtPoint(long requestId, long primaryGen, long version) implements Message {}

  /**
   * Primary published a new NRT point and holds its copy-state for this replica (protocol version 2,
   * one-way): the same fields as {@link CopyStateReply}, so the replica need not ask. The replica
   * releases it with {@link ReleaseCopyState} as any other; the primary also drops it unused once
   * newer points were pushed (see docs/protocol.md).
   */
  record NrtPointCopyState(long requestId, CopyStateReply state) implements Message {}

  /** Replica started and wants NRT points and merge pre-copies; answered with {@link Ack}. */
  record NewReplica(long requestId, int replicaId, long searchingVersion) implements Message {}

  /**
   * Replica to primary (protocol version 3): this replica now searches {@code version}, which it
   * copied from (or, right after connecting, already held of) a point the primary published; {@code
   * incarnation} names this run of the replica's index (a restart has another), so that the primary
   * counts an install only for the run that made it. Answered with {@link Ack}. The primary's
   * in-sync set is built from these reports.
   */
  record Installed(long requestId, long primaryGen, long version, long incarnation) implements Message {}

  /**
   * Primary to replica (protocol version 4, one-way): where this replica should fetch the files of
   * the points and merge pre-copies the primary announces from now on: from replica {@code parentId}
   * at {@code parentAddress} ({@code host:port}), or from the primary itself when {@code parentId}
   * is -1 (the address is then empty). Only where the bytes come from changes: copy-states,
   * versions and checksums still come from the primary, and a file the parent cannot serve whole and
   * intact is fetched from the primary.
   */
  record CopySource(long requestId, long primaryGen, int parentId, String parentAddress) implements Message {}

  /**
   * Primary asks a replica to pre-copy a just-merged segment before the primary installs it. The
   * replica answers with {@link PreCopyProgress} keep-alives and one {@link PreCopyDone}.
   */
  record PreCopyMerge(long requestId, long preCopyId, long primaryGen, Map<String, FileMeta> files)
      implements Message {}

  /** Keep-alive of a running pre-copy: total bytes copied so far. */
  record PreCopyProgress(long requestId, long bytesCopied) implements Message {}

  /** End of a pre-copy; {@code success} false when the replica gave up or was superseded. */
  record PreCopyDone(long requestId, boolean success) implements Message {}

  /**
   * Replica tells the primary that file {@code name}, as the primary advertised it ({@code length},
   * {@code checksum}) in generation {@code primaryGen}, arrived with a wrong checksum {@code
   * failures} times in a row. The primary verifies its own copy and answers {@link FileVerdict}, or
   * {@code ERROR(FILE_NOT_SERVABLE)} for a name it would never serve.
   */
  record ReportCorruptFile(long requestId, long primaryGen, String name, long length, long checksum, int failures)
      implements Message {}

  /** What the primary found when it read a reported file in full. */
  enum Verdict {
    /** The primary's own copy fails its checksum: the primary's file is bad. */
    CORRUPT(1),
    /** The primary's copy verifies and matches what it advertised: the fault is on the way or at the replica. */
    INTACT(2);

    final byte wire;

    Verdict(int wire) {
      this.wire = (byte) wire;
    }
  }

  /** Answer to {@link ReportCorruptFile}; {@code detail} says what was found, for the log. */
  record FileVerdict(long requestId, Verdict verdict, String detail) implements Message {}
}
