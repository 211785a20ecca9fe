package io.nrtcluster.transport;

import io.nrtcluster.common.ProtocolException;

/** Wire code of each {@link Message} kind, and whether it starts a request or answers one. */
enum MessageType {
  HELLO(1, true),
  HELLO_OK(2, false),
  ERROR(3, false),
  ACK(4, false),
  PING(5, true),
  GET_COPY_STATE(10, true),
  COPY_STATE(11, false),
  RELEASE_COPY_STATE(12, true),
  FETCH_FILE(13, true),
  FILE_HEADER(14, false),
  FILE_CHUNK(15, false),
  CREDIT(16, false),
  CANCEL(17, false),
  NRT_POINT(20, true),
  NEW_REPLICA(21, true),
  NRT_POINT_COPY_STATE(25, true),
  PRE_COPY_MERGE(22, true),
  PRE_COPY_PROGRESS(23, false),
  PRE_COPY_DONE(24, false),
  INSTALLED(26, true),
  COPY_SOURCE(27, true),
  REPORT_CORRUPT_FILE(30, true),
  FILE_VERDICT(31, false);

  private static final MessageType[] BY_CODE = new MessageType[256];

  static {
    for (MessageType t : values()) {
      BY_CODE[t.code] = t;
    }
  }

  final byte code;
  /** True when the message starts an exchange (its id is in the sender's id space). */
  final boolean request;

  MessageType(int code, boolean request) {
    this.code = (byte) code;
    this.request = request;
  }

  static MessageType fromCode(byte code) throws ProtocolException {
    MessageType t = BY_CODE[code & 0xFF];
    if (t == null) {
      throw new ProtocolException("unknown message type " + (code & 0xFF));
    }
    return t;
  }

  static MessageType of(Message m) {
    return switch (m) {
      case Message.Hello x -> HELLO;
      case Message.HelloOk x -> HELLO_OK;
      case Message.ErrorReply x -> ERROR;
      case Message.Ack x -> ACK;
      case Message.Ping x -> PING;
      case Message.GetCopyState x -> GET_COPY_STATE;
      case Message.CopyStateReply x -> COPY_STATE;
      case Message.ReleaseCopyState x -> RELEASE_COPY_STATE;
      case Message.FetchFile x -> FETCH_FILE;
      case Message.FileHeader x -> FILE_HEADER;
      case FileChunk x -> FILE_CHUNK;
      case FileRegionChunk x -> FILE_CHUNK;
      case Message.Credit x -> CREDIT;
      case Message.Cancel x -> CANCEL;
      case Message.NrtPoint x -> NRT_POINT;
      case Message.NrtPointCopyState x -> NRT_POINT_COPY_STATE;
      case Message.NewReplica x -> NEW_REPLICA;
      case Message.Installed x -> INSTALLED;
      case Message.CopySource x -> COPY_SOURCE;
      case Message.PreCopyMerge x -> PRE_COPY_MERGE;
      case Message.PreCopyProgress x -> PRE_COPY_PROGRESS;
      case Message.PreCopyDone x -> PRE_COPY_DONE;
      case Message.ReportCorruptFile x -> REPORT_CORRUPT_FILE;
      case Message.FileVerdict x -> FILE_VERDICT;
    };
  }
}
