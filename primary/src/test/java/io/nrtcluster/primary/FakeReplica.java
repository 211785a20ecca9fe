package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.InboundFileStream;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.PeerRole;
import io.nrtcluster.transport.Transport;
import io.nrtcluster.transport.TransportConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The replica side of the wire made by hand: a raw transport connection to a real {@link Primary}
 * that answers merge pre-copies the way a test chooses (at once, with keep-alives until told, or
 * never). Everything the primary sends it is real; nothing of the primary is replaced.
 */
final class FakeReplica implements AutoCloseable {
  static final String CLUSTER = "c";
  static final String INDEX = "idx";
  private static final Duration WAIT = Duration.ofSeconds(20);
  /** How often a {@link PreCopyAnswer#KEEP_ALIVE} replica reports progress. */
  static final Duration PROGRESS_EVERY = Duration.ofMillis(50);

  /** How a replica answers a merge pre-copy. */
  enum PreCopyAnswer {
    /** Reports success at once. */
    DONE,
    /** Reports progress every {@link #PROGRESS_EVERY} until {@link #finish} (a slow, live copy). */
    KEEP_ALIVE,
    /** Accepts the request and never answers (a hung replica). */
    SILENT
  }

  final int nodeId;
  private final Transport transport;
  private final Connection connection;
  private final PreCopyAnswer answer;
  private final BlockingQueue<Message.PreCopyMerge> preCopies = new LinkedBlockingQueue<>();
  /** NRT points that brought their copy-state, in the order they came (kept, never released here). */
  final List<Message.CopyStateReply> pushed = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final Map<Long, ScheduledFuture<?>> keepAlives = new ConcurrentHashMap<>();
  private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();

  private FakeReplica(int nodeId, Transport transport, PreCopyAnswer answer, Primary primary) throws Exception {
    this.nodeId = nodeId;
    this.transport = transport;
    this.answer = answer;
    this.connection = transport.connect(primary.address(), CLUSTER, INDEX, nodeId, PeerRole.REPLICA, this::onRequest)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  static TransportConfig transportConfig() {
    return TransportConfig.builder().ioThreads(1).requestThreads(2)
        .requestTimeout(Duration.ofSeconds(10)).readTimeout(Duration.ofSeconds(10)).build();
  }

  /** Connects to {@code primary} (not yet subscribed to NRT points or pre-copies: see {@link #join}). */
  static FakeReplica connect(Primary primary, int nodeId, PreCopyAnswer answer) throws Exception {
    Transport t = Transport.create("R" + nodeId, transportConfig());
    try {
      return new FakeReplica(nodeId, t, answer, primary);
    } catch (Exception e) {
      t.close();
      throw e;
    }
  }

  Connection connection() {
    return connection;
  }

  /** Subscribes, as a replica does after connecting: from now on it hears of NRT points and pre-copies. */
  void join() throws Exception {
    assertThat(connection.request(id -> new Message.NewReplica(id, nodeId, -1)).get(WAIT.toSeconds(), TimeUnit.SECONDS))
        .isInstanceOf(Message.Ack.class);
  }

  Message.CopyStateReply copyState() throws Exception {
    return (Message.CopyStateReply) connection.request(id -> new Message.GetCopyState(id, nodeId))
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  void release(long copyStateId) throws Exception {
    connection.request(id -> new Message.ReleaseCopyState(id, copyStateId)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  /** The whole file {@code name} of source {@code kind}/{@code id}; throws the primary's typed refusal. */
  byte[] fetch(Message.SourceKind kind, long sourceId, String name) throws IOException {
    try (InboundFileStream s = connection.fetchFile(kind, sourceId, name, 0)) {
      long length = s.length();
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      for (int n; (n = s.read(buf, 0, buf.length)) >= 0; ) {
        out.write(buf, 0, n);
      }
      assertThat((long) out.size()).as("bytes of %s", name).isEqualTo(length);
      return out.toByteArray();
    }
  }

  /** The next merge pre-copy the primary sent here, waiting for it. */
  Message.PreCopyMerge awaitPreCopy() throws InterruptedException {
    Message.PreCopyMerge m = preCopies.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(m).as("R%d got a merge pre-copy", nodeId).isNotNull();
    return m;
  }

  /** Pre-copies received and not yet taken with {@link #awaitPreCopy}. */
  int pendingPreCopies() {
    return preCopies.size();
  }

  /** Ends a pre-copy: stops its keep-alives and reports {@code success}. */
  void finish(Message.PreCopyMerge m, boolean success) {
    ScheduledFuture<?> f = keepAlives.remove(m.requestId());
    if (f != null) {
      f.cancel(false);
    }
    connection.reply(new Message.PreCopyDone(m.requestId(), success));
  }

  private void onRequest(Connection c, Message m) {
    switch (m) {
      case Message.Ping p -> c.reply(new Message.Ack(p.requestId()));
      case Message.PreCopyMerge pc -> {
        switch (answer) {
          case DONE -> c.reply(new Message.PreCopyDone(pc.requestId(), true));
          case KEEP_ALIVE -> {
            AtomicLong bytes = new AtomicLong();
            keepAlives.put(pc.requestId(), ticker.scheduleAtFixedRate(
                () -> c.reply(new Message.PreCopyProgress(pc.requestId(), bytes.addAndGet(1024))),
                0, PROGRESS_EVERY.toMillis(), TimeUnit.MILLISECONDS));
          }
          case SILENT -> {}
        }
        preCopies.add(pc);
      }
      case Message.NrtPointCopyState p -> pushed.add(p.state());
      default -> {} // NRT points: this replica copies nothing
    }
  }

  @Override
  public void close() {
    ticker.shutdownNow();
    connection.close();
    transport.close();
  }
}
