package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ClusterMismatchException;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.ProtocolException;
import io.nrtcluster.common.RemoteException;
import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.common.RequestTimeoutException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Real transports talking over sockets on 127.0.0.1. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TransportLoopbackTest {
  private static final String CLUSTER = "c1";
  private static final String INDEX = "idx";
  private static final int SERVER_NODE = 7;
  private static final long SERVER_GEN = 42;
  private static final int CLIENT_NODE = 3;
  private static final int WINDOW = 64 * 1024;
  private static final int CHUNK = 16 * 1024;
  private static final int MAX_FRAME = 256 * 1024;
  private static final Duration WAIT = Duration.ofSeconds(20);
  /** A pre-copy the client handler never answers. */
  private static final long SILENT_PRE_COPY = 99;

  @RegisterExtension final TestSeed seed = new TestSeed();

  @TempDir Path dir;

  private final List<Transport> transports = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final RecordingHandler clientHandler = new RecordingHandler();
  private TestEndpoint endpoint;

  @AfterEach
  void tearDown() throws Exception {
    WireTestUtil.closeAll(closeables, transports);
  }

  // ---------------------------------------------------------------- fixtures

  private static TransportConfig.Builder config() {
    return TransportConfig.builder()
        .ioThreads(2)
        .requestThreads(4)
        .maxFrameBytes(MAX_FRAME)
        .chunkBytes(CHUNK)
        .streamWindowBytes(WINDOW)
        .connectTimeout(Duration.ofSeconds(5))
        .handshakeTimeout(Duration.ofSeconds(5))
        .requestTimeout(Duration.ofSeconds(15))
        .readTimeout(Duration.ofSeconds(15));
  }

  private static ConditionFactory waiting() {
    return await().atMost(WAIT).pollInterval(Duration.ofMillis(10));
  }

  private Transport transport(String name, TransportConfig config) throws NrtClusterException {
    Transport t = Transport.create(name, config);
    transports.add(t);
    return t;
  }

  private TransportServer server(TransportConfig config) throws NrtClusterException {
    TransportServer server = transport("srv", config).bind("127.0.0.1", 0, CLUSTER);
    endpoint = new TestEndpoint(dir);
    server.register(INDEX, endpoint);
    return server;
  }

  private TransportServer server() throws NrtClusterException {
    return server(config().build());
  }

  private Transport client(TransportConfig config) throws NrtClusterException {
    return transport("cli", config);
  }

  private Connection connect(Transport client, TransportServer server) throws Exception {
    return client
        .connect(server.localAddress(), CLUSTER, INDEX, CLIENT_NODE, PeerRole.REPLICA, clientHandler)
        .get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private Connection connect(TransportServer server) throws Exception {
    return connect(client(config().build()), server);
  }

  /** The cause a future failed with; fails the test if it succeeds or takes too long. */
  private static Throwable failure(CompletableFuture<?> future) throws InterruptedException {
    try {
      Object value = future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (CancellationException e) {
      return e;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("future did not complete within " + WAIT, e);
    }
  }

  private static Message ping(Connection c) throws Exception {
    return c.request(Message.Ping::new).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private Path randomFile(String name, int size, Random random) throws IOException {
    byte[] data = new byte[size];
    random.nextBytes(data);
    return Files.write(dir.resolve(name), data);
  }

  /**
   * Reads a stream to its end with read sizes that do not line up with chunks, mixing copying reads
   * with reads in place (whose views must show exactly the bytes they claim).
   */
  private static byte[] readAll(InboundFileStream s, Random random) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[40_000];
    int n;
    do {
      int max = 1 + random.nextInt(buf.length);
      if (random.nextBoolean()) {
        n = s.read(buf, 0, max);
        if (n > 0) {
          out.write(buf, 0, n);
        }
      } else {
        n = s.readInPlace(max, view -> {
          byte[] bytes = new byte[view.remaining()];
          view.get(bytes);
          out.write(bytes, 0, bytes.length);
        });
        assertThat(n).isLessThanOrEqualTo(max);
      }
    } while (n >= 0);
    return out.toByteArray();
  }

  private Socket rawSocket(TransportServer server) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().port());
    s.setSoTimeout((int) WAIT.toMillis());
    s.setTcpNoDelay(true);
    closeables.add(s);
    return s;
  }

  private static Message.Hello hello(long id, int version, String index) {
    return new Message.Hello(id, version, CLUSTER, index, 11, PeerRole.CLIENT);
  }

  /** Reads until the server closes the socket; returns false if the server reset it instead. */
  private static boolean closedByPeer(InputStream in) throws IOException {
    try {
      return in.read() == -1;
    } catch (SocketException reset) {
      return true;
    }
  }

  /** Server side of the index: pings are acked, fetches stream files of a directory. */
  static final class TestEndpoint implements Endpoint {
    final Path dir;
    final BlockingQueue<Message> requests = new LinkedBlockingQueue<>();
    final List<Connection> connected = new CopyOnWriteArrayList<>();
    final List<Connection> closed = new CopyOnWriteArrayList<>();
    volatile RequestHandler behaviour;

    TestEndpoint(Path dir) {
      this.dir = dir;
    }

    @Override
    public int nodeId() {
      return SERVER_NODE;
    }

    @Override
    public long primaryGeneration() {
      return SERVER_GEN;
    }

    @Override
    public PeerRole role() {
      return PeerRole.PRIMARY;
    }

    @Override
    public void onConnect(Connection connection) {
      connected.add(connection);
    }

    @Override
    public void onClose(Connection connection) {
      closed.add(connection);
    }

    @Override
    public void onRequest(Connection connection, Message request) throws Exception {
      requests.add(request);
      RequestHandler b = behaviour;
      if (b != null) {
        b.onRequest(connection, request);
        return;
      }
      switch (request) {
        case Message.Ping p -> connection.reply(new Message.Ack(p.requestId()));
        case Message.FetchFile f -> {
          if (f.name().contains("/") || f.name().contains("..")) {
            throw new FileNotServableException("unsafe name " + f.name());
          }
          connection.streamFile(f, dir.resolve(f.name()));
        }
        default -> {} // never answered
      }
    }
  }

  /** Client side handler for requests the server starts. */
  static final class RecordingHandler implements RequestHandler {
    final BlockingQueue<Message> requests = new LinkedBlockingQueue<>();
    final List<Connection> closed = new CopyOnWriteArrayList<>();

    @Override
    public void onRequest(Connection connection, Message request) {
      requests.add(request);
      switch (request) {
        case Message.Ping p -> connection.reply(new Message.Ack(p.requestId()));
        case Message.PreCopyMerge m when m.preCopyId() == SILENT_PRE_COPY -> {}
        case Message.PreCopyMerge m -> {
          for (int i = 1; i <= 3; i++) {
            connection.reply(new Message.PreCopyProgress(m.requestId(), i * 1000L));
          }
          connection.reply(new Message.PreCopyDone(m.requestId(), true));
        }
        default -> {}
      }
    }

    @Override
    public void onClose(Connection connection) {
      closed.add(connection);
    }
  }

  // ---------------------------------------------------------------- handshake

  @Test
  void handshakeExchangesIdentities() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);

    assertThat(c.isOpen()).isTrue();
    assertThat(c.peerNodeId()).isEqualTo(SERVER_NODE);
    assertThat(c.peerPrimaryGen()).isEqualTo(SERVER_GEN);
    assertThat(c.peerRole()).isEqualTo(PeerRole.PRIMARY);
    assertThat(c.index()).isEqualTo(INDEX);

    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);
    assertThat(serverSide.peerNodeId()).isEqualTo(CLIENT_NODE);
    assertThat(serverSide.peerRole()).isEqualTo(PeerRole.REPLICA);
    assertThat(serverSide.peerPrimaryGen()).isEqualTo(-1);
    assertThat(serverSide.index()).isEqualTo(INDEX);
    assertThat(server.cluster()).isEqualTo(CLUSTER);
    assertThat(server.localAddress().port()).isPositive();
  }

  @Test
  void wrongClusterIsRefused() throws Exception {
    TransportServer server = server();
    Transport client = client(config().build());
    Throwable t = failure(client.connect(server.localAddress(), "other", INDEX, CLIENT_NODE, PeerRole.REPLICA, clientHandler));
    assertThat(t).isInstanceOf(ClusterMismatchException.class).hasMessageContaining("other");
    assertThat(((ClusterMismatchException) t).code()).isEqualTo(ErrorCode.WRONG_CLUSTER);
    assertThat(endpoint.connected).isEmpty();
  }

  @Test
  void unknownIndexIsRefused() throws Exception {
    TransportServer server = server();
    Transport client = client(config().build());
    Throwable t = failure(client.connect(server.localAddress(), CLUSTER, "nope", CLIENT_NODE, PeerRole.REPLICA, clientHandler));
    assertThat(t).isInstanceOf(ClusterMismatchException.class).hasMessageContaining("nope");
    assertThat(((ClusterMismatchException) t).code()).isEqualTo(ErrorCode.UNKNOWN_INDEX);
    assertThat(endpoint.connected).isEmpty();
  }

  @Test
  void wrongProtocolVersionIsRefused() throws Exception {
    TransportServer server = server();
    Socket s = rawSocket(server);
    s.getOutputStream().write(WireTestUtil.encode(hello(5, WireFormat.PROTOCOL_VERSION + 1, INDEX)));
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(reply).isInstanceOf(Message.ErrorReply.class);
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL_VERSION);
    assertThat(reply.requestId()).isEqualTo(5);
    assertThat(closedByPeer(s.getInputStream())).isTrue();
  }

  /**
   * A node of a release whose protocol is out of this server's range (one newer than it speaks, one
   * older than it still accepts) gets a typed refusal naming the version it announced and the range
   * each side speaks; the server keeps serving nodes of its own version.
   */
  @ParameterizedTest(name = "announcing {0}")
  @ValueSource(ints = {WireFormat.PROTOCOL_VERSION + 1, WireFormat.MIN_PROTOCOL_VERSION - 1})
  void aPeerOfAnIncompatibleProtocolVersionGetsATypedRefusalNamingBothVersions(int announced) throws Exception {
    TransportServer server = server();
    Transport client = client(config().build());
    Throwable t = failure(client.connect(server.localAddress(), CLUSTER, INDEX, CLIENT_NODE, PeerRole.REPLICA, clientHandler, announced));
    assertThat(t).isInstanceOf(ClusterMismatchException.class);
    assertThat(((ClusterMismatchException) t).code()).isEqualTo(ErrorCode.PROTOCOL_VERSION);
    assertThat(t.getMessage())
        .contains("refused protocol version " + announced)
        .contains("protocol version " + announced + " is not supported")
        .contains("speaks " + WireFormat.MIN_PROTOCOL_VERSION + " to " + WireFormat.PROTOCOL_VERSION)
        .contains(server.localAddress().toString());
    assertThat(endpoint.connected).as("the refused peer never reaches the endpoint").isEmpty();
    assertThat(connect(client, server).isOpen()).as("a peer of this version still connects").isTrue();
  }

  /** Rolling upgrade: a node of this release reaches a primary of the previous one in that one's protocol. */
  @Test
  void aPeerOfThePreviousReleaseIsReachedInItsProtocolVersion() throws Exception {
    int previous = WireFormat.PROTOCOL_VERSION - 1;
    TransportServer server = server();
    server.acceptProtocolVersions(WireFormat.MIN_PROTOCOL_VERSION, previous);
    Connection c = connect(client(config().build()), server);
    assertThat(c.peerProtocolVersion()).isEqualTo(previous);
    waiting().until(() -> endpoint.connected.size() == 1);
    assertThat(endpoint.connected.get(0).peerProtocolVersion()).as("what the server saw announced").isEqualTo(previous);
    assertThat(endpoint.connected.get(0).peerTakesCopySources()).as("a message of this release only").isFalse();
    assertThat(endpoint.connected.get(0).peerTakesInstallReports()).as("a message of the release before").isTrue();
  }

  /** A peer that accepts none of this node's versions (a release two protocols ahead) is a typed refusal, after trying each. */
  @Test
  void aPeerThatAcceptsNoneOfOurVersionsIsATypedRefusal() throws Exception {
    TransportServer server = server();
    server.acceptProtocolVersions(WireFormat.PROTOCOL_VERSION + 1, WireFormat.PROTOCOL_VERSION + 1);
    Throwable t = failure(client(config().build())
        .connect(server.localAddress(), CLUSTER, INDEX, CLIENT_NODE, PeerRole.REPLICA, clientHandler));
    assertThat(t).isInstanceOf(ClusterMismatchException.class);
    assertThat(((ClusterMismatchException) t).code()).isEqualTo(ErrorCode.PROTOCOL_VERSION);
    int next = WireFormat.PROTOCOL_VERSION + 1;
    assertThat(t.getMessage())
        .contains("refused protocol version " + WireFormat.MIN_PROTOCOL_VERSION + " (this node speaks "
            + WireFormat.MIN_PROTOCOL_VERSION + " to " + WireFormat.PROTOCOL_VERSION + ")")
        .contains("(this node speaks " + next + " to " + next + ")");
    assertThat(endpoint.connected).isEmpty();
  }

  @Test
  void connectToAClosedPortFailsWithConnectionException() throws Exception {
    int port;
    try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = ss.getLocalPort();
    }
    Transport client = client(config().build());
    Throwable t = failure(client.connect(new NodeAddress("127.0.0.1", port), CLUSTER, INDEX, 1, PeerRole.REPLICA, clientHandler));
    assertThat(t).as("nothing listens there: a refusal, which failure detectors rely on")
        .isInstanceOf(io.nrtcluster.common.ConnectionRefusedException.class);
  }

  @Test
  void peerThatNeverAnswersTheHandshakeTimesOut() throws Exception {
    // Accepts at the TCP level (backlog) but never speaks.
    ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    closeables.add(silent);
    Transport client = client(config().handshakeTimeout(Duration.ofMillis(300)).build());
    Throwable t =
        failure(client.connect(new NodeAddress("127.0.0.1", silent.getLocalPort()), CLUSTER, INDEX, 1, PeerRole.REPLICA, clientHandler));
    assertThat(t).isInstanceOf(RequestTimeoutException.class);
  }

  @Test
  void clientThatSendsNoHandshakeIsDroppedAfterTheHandshakeTimeout() throws Exception {
    TransportServer server = server(config().handshakeTimeout(Duration.ofMillis(300)).build());
    long start = System.nanoTime();
    Socket s = rawSocket(server);
    assertThat(s.getInputStream().read()).as("closed without a word").isEqualTo(-1);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(250));

    // The server still serves well-behaved clients.
    assertThat(ping(connect(server))).isInstanceOf(Message.Ack.class);
  }

  @Test
  void handshakenConnectionOutlivesTheHandshakeTimeout() throws Exception {
    TransportServer server = server(config().handshakeTimeout(Duration.ofMillis(200)).build());
    Socket s = rawSocket(server);
    s.getOutputStream().write(WireTestUtil.encode(hello(1, WireFormat.PROTOCOL_VERSION, INDEX)));
    Message ok = WireTestUtil.readFrame(s.getInputStream());
    assertThat(ok).isEqualTo(new Message.HelloOk(1, SERVER_NODE, SERVER_GEN, PeerRole.PRIMARY));
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);
    await().during(Duration.ofMillis(600)).atMost(Duration.ofSeconds(5)).until(serverSide::isOpen);
    s.getOutputStream().write(WireTestUtil.encode(new Message.Ping(2)));
    assertThat(WireTestUtil.readFrame(s.getInputStream())).isEqualTo(new Message.Ack(2));
  }

  @Test
  void messageBeforeTheHandshakeIsAProtocolError() throws Exception {
    TransportServer server = server();
    Socket s = rawSocket(server);
    s.getOutputStream().write(WireTestUtil.encode(new Message.Ping(1)));
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(reply).isInstanceOf(Message.ErrorReply.class);
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(reply.requestId()).isZero();
    assertThat(closedByPeer(s.getInputStream())).isTrue();
    assertThat(endpoint.requests).isEmpty();
  }

  @Test
  void secondHandshakeIsAProtocolError() throws Exception {
    TransportServer server = server();
    Socket s = rawSocket(server);
    OutputStream out = s.getOutputStream();
    out.write(WireTestUtil.encode(hello(1, WireFormat.PROTOCOL_VERSION, INDEX)));
    assertThat(WireTestUtil.readFrame(s.getInputStream())).isInstanceOf(Message.HelloOk.class);
    out.write(WireTestUtil.encode(hello(2, WireFormat.PROTOCOL_VERSION, INDEX)));
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(closedByPeer(s.getInputStream())).isTrue();
    waiting().until(() -> endpoint.closed.size() == 1);
  }

  // ---------------------------------------------------------------- bad frames

  @ParameterizedTest(name = "after handshake: {0}")
  @ValueSource(booleans = {false, true})
  void oversizedFrameClosesOnlyThatConnection(boolean afterHandshake) throws Exception {
    TransportServer server = server();
    Connection healthy = connect(server);

    Socket s = rawSocket(server);
    OutputStream out = s.getOutputStream();
    if (afterHandshake) {
      out.write(WireTestUtil.encode(hello(1, WireFormat.PROTOCOL_VERSION, INDEX)));
      assertThat(WireTestUtil.readFrame(s.getInputStream())).isInstanceOf(Message.HelloOk.class);
    }
    ByteBuffer frame = ByteBuffer.allocate(4 + 64);
    frame.putInt(MAX_FRAME + 1).put(MessageType.FILE_CHUNK.code).putLong(1).putLong(0);
    out.write(frame.array());
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(((Message.ErrorReply) reply).message()).contains("frame too long");
    assertThat(closedByPeer(s.getInputStream())).isTrue();

    assertThat(healthy.isOpen()).isTrue();
    assertThat(ping(healthy)).isInstanceOf(Message.Ack.class);
    assertThat(ping(connect(server))).isInstanceOf(Message.Ack.class);
  }

  @Test
  void replyOfExactlyMaxFrameBytesCrossesTheWire() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    // type + id + 4 longs + infos length + infos + file count + name count + position flag = maxFrameBytes
    byte[] infos = new byte[MAX_FRAME - (1 + 8 + 32 + 4 + 4 + 4 + 1)];
    seed.random().nextBytes(infos);
    endpoint.behaviour =
        (conn, r) -> conn.reply(new Message.CopyStateReply(r.requestId(), 1, SERVER_GEN, 2, 3, infos, Map.of(), Set.of()));
    Message reply = c.request(id -> new Message.GetCopyState(id, CLIENT_NODE)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(((Message.CopyStateReply) reply).infosBytes()).isEqualTo(infos);
    assertThat(c.isOpen()).isTrue();
  }

  @Test
  void requestAboveMaxFrameBytesFailsLocallyAndKeepsTheConnection() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    Map<String, FileMeta> files = new java.util.HashMap<>();
    for (int i = 0; i < 5; i++) {
      files.put("_" + i + ".cfs", new FileMeta(new byte[60_000], new byte[16], 1, 1));
    }
    Throwable t = failure(c.request(id -> new Message.PreCopyMerge(id, 1, 1, files)));
    assertThat(t).isInstanceOf(ProtocolException.class).hasMessageContaining("maxFrameBytes");
    assertThat(c.isOpen()).isTrue();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
    assertThat(endpoint.requests).noneMatch(m -> m instanceof Message.PreCopyMerge);
  }

  @Test
  void lengthPrefixWithTheSignBitSetClosesOnlyThatConnection() throws Exception {
    TransportServer server = server();
    Connection healthy = connect(server);
    Socket s = rawSocket(server);
    s.getOutputStream().write(ByteBuffer.allocate(12).putInt(Integer.MIN_VALUE).putLong(1).array());
    // The prefix is unsigned: a 2 GiB frame, refused as too long.
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(closedByPeer(s.getInputStream())).isTrue();
    assertThat(ping(healthy)).isInstanceOf(Message.Ack.class);
    assertThat(ping(connect(server))).isInstanceOf(Message.Ack.class);
  }

  @Test
  void malformedFrameAfterHandshakeClosesOnlyThatConnection() throws Exception {
    TransportServer server = server();
    Connection healthy = connect(server);
    Socket s = rawSocket(server);
    OutputStream out = s.getOutputStream();
    out.write(WireTestUtil.encode(hello(1, WireFormat.PROTOCOL_VERSION, INDEX)));
    assertThat(WireTestUtil.readFrame(s.getInputStream())).isInstanceOf(Message.HelloOk.class);
    // A credit of zero: well framed, but not a legal message.
    out.write(ByteBuffer.allocate(4 + 13).putInt(13).put(MessageType.CREDIT.code).putLong(1).putInt(0).array());
    Message reply = WireTestUtil.readFrame(s.getInputStream());
    assertThat(((Message.ErrorReply) reply).code()).isEqualTo(ErrorCode.PROTOCOL);
    assertThat(((Message.ErrorReply) reply).message()).contains("non-positive credit");
    assertThat(closedByPeer(s.getInputStream())).isTrue();
    assertThat(ping(healthy)).isInstanceOf(Message.Ack.class);
  }

  // ---------------------------------------------------------------- requests

  @Test
  void pingIsAnsweredWithAck() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    Message reply = ping(c);
    assertThat(reply).isInstanceOf(Message.Ack.class);
    Message request = endpoint.requests.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(request).isInstanceOf(Message.Ping.class);
    assertThat(reply.requestId()).isEqualTo(request.requestId());
  }

  @Test
  void manyConcurrentRequestsGetTheirOwnReplies() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<long[]>>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        results.add(pool.submit(() -> {
          List<long[]> pairs = new ArrayList<>();
          List<CompletableFuture<Message>> futures = new ArrayList<>();
          long[] ids = new long[50];
          for (int i = 0; i < 50; i++) {
            int slot = i;
            futures.add(c.request(id -> {
              ids[slot] = id;
              return new Message.Ping(id);
            }));
          }
          for (int i = 0; i < 50; i++) {
            pairs.add(new long[] {ids[i], futures.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS).requestId()});
          }
          return pairs;
        }));
      }
      Set<Long> seen = new HashSet<>();
      for (Future<List<long[]>> f : results) {
        for (long[] pair : f.get(WAIT.toSeconds(), TimeUnit.SECONDS)) {
          assertThat(pair[1]).as("reply id matches request id").isEqualTo(pair[0]);
          seen.add(pair[0]);
        }
      }
      assertThat(seen).hasSize(200);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void endpointExceptionsBecomeTypedErrorsOnTheClient() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    endpoint.behaviour = (conn, r) -> {
      switch (r) {
        case Message.GetCopyState g when g.replicaId() == 1 -> throw new FileNotServableException("not yours: _0.cfs");
        case Message.GetCopyState g when g.replicaId() == 2 -> throw new StalePrimaryGenerationException("gen 1 < 2");
        case Message.GetCopyState g when g.replicaId() == 3 -> throw new IllegalStateException("bug!");
        default -> conn.reply(new Message.Ack(r.requestId()));
      }
    };

    Throwable notServable = failure(c.request(id -> new Message.GetCopyState(id, 1)));
    assertThat(notServable).isInstanceOf(FileNotServableException.class).hasMessageContaining("not yours: _0.cfs");
    assertThat(((NrtClusterException) notServable).code()).isEqualTo(ErrorCode.FILE_NOT_SERVABLE);

    assertThat(failure(c.request(id -> new Message.GetCopyState(id, 2)))).isInstanceOf(StalePrimaryGenerationException.class);

    Throwable internal = failure(c.request(id -> new Message.GetCopyState(id, 3)));
    assertThat(internal).isInstanceOf(RemoteException.class).hasMessageContaining("bug!");
    assertThat(((NrtClusterException) internal).code()).isEqualTo(ErrorCode.INTERNAL);

    // The connection survives failed requests.
    assertThat(c.isOpen()).isTrue();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @Test
  void unansweredRequestTimesOut() throws Exception {
    TransportServer server = server();
    Connection c = connect(client(config().requestTimeout(Duration.ofMillis(300)).build()), server);
    endpoint.behaviour = (conn, r) -> {}; // never answers

    Throwable byConfig = failure(c.request(Message.Ping::new));
    assertThat(byConfig).isInstanceOf(RequestTimeoutException.class);
    assertThat(((NrtClusterException) byConfig).code()).isEqualTo(ErrorCode.TIMEOUT);

    Throwable byArgument = failure(c.request(id -> new Message.GetCopyState(id, 1), Duration.ofMillis(100)));
    assertThat(byArgument).isInstanceOf(RequestTimeoutException.class);

    endpoint.behaviour = null;
    assertThat(c.isOpen()).isTrue();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @Test
  void requestsBeyondTheInFlightLimitAreRefused() throws Exception {
    TransportServer server = server(config().maxRequestsInFlight(1).build());
    Connection c = connect(server);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    endpoint.behaviour = (conn, r) -> {
      if (r instanceof Message.GetCopyState) {
        entered.countDown();
        assertThat(release.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      }
      conn.reply(new Message.Ack(r.requestId()));
    };
    CompletableFuture<Message> slow = c.request(id -> new Message.GetCopyState(id, 1));
    assertThat(entered.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    Throwable refused = failure(c.request(Message.Ping::new));
    assertThat(refused).isInstanceOf(RemoteException.class);
    assertThat(((NrtClusterException) refused).code()).isEqualTo(ErrorCode.TOO_MANY_REQUESTS);

    release.countDown();
    assertThat(slow.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(Message.Ack.class);
    waiting().untilAsserted(() -> assertThat(ping(c)).isInstanceOf(Message.Ack.class));
  }

  @Test
  void serverCanRequestFromTheClientAndSendOneWayMessages() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);

    assertThat(serverSide.request(Message.Ping::new).get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(Message.Ack.class);

    serverSide.send(new Message.NrtPoint(serverSide.nextRequestId(), SERVER_GEN, 1234));
    waiting().untilAsserted(() -> assertThat(clientHandler.requests).contains(new Message.Ping(1)).hasSize(2));
    assertThat(clientHandler.requests).anySatisfy(m -> {
      assertThat(m).isInstanceOf(Message.NrtPoint.class);
      assertThat(((Message.NrtPoint) m).version()).isEqualTo(1234);
    });
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @Test
  void streamingRepliesReachTheListenerUntilTheLastOne() throws Exception {
    TransportServer server = server();
    connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);

    List<Message> replies = new CopyOnWriteArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    Map<String, FileMeta> files = Map.of("_9.cfs", MessageCodecTest.meta(1, 100));
    long id =
        serverSide.requestStreaming(
            rid -> new Message.PreCopyMerge(rid, 5, SERVER_GEN, files),
            new ReplyListener() {
              @Override
              public boolean onReply(Message reply) {
                replies.add(reply);
                return reply instanceof Message.PreCopyDone;
              }

              @Override
              public void onFailure(Throwable cause) {
                failures.add(cause);
              }
            });
    waiting().until(() -> replies.size() == 4);
    assertThat(replies)
        .containsExactly(
            new Message.PreCopyProgress(id, 1000),
            new Message.PreCopyProgress(id, 2000),
            new Message.PreCopyProgress(id, 3000),
            new Message.PreCopyDone(id, true));
    assertThat(serverSide.pendingSink(id)).as("exchange finished").isNull();
    Message.PreCopyMerge received = (Message.PreCopyMerge) clientHandler.requests.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(received.files()).isEqualTo(files);
    assertThat(failures).isEmpty();
  }

  @Test
  void cancellingAStreamingRequestNotifiesItsListener() throws Exception {
    TransportServer server = server();
    connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);
    List<Message> replies = new CopyOnWriteArrayList<>();
    List<Throwable> failures = new CopyOnWriteArrayList<>();
    long id =
        serverSide.requestStreaming(
            rid -> new Message.PreCopyMerge(rid, SILENT_PRE_COPY, SERVER_GEN, Map.of()),
            new ReplyListener() {
              @Override
              public boolean onReply(Message reply) {
                replies.add(reply);
                return true;
              }

              @Override
              public void onFailure(Throwable cause) {
                failures.add(cause);
              }
            });
    assertThat(clientHandler.requests.poll(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(Message.PreCopyMerge.class);

    serverSide.cancel(id);

    // ReplyListener#onFailure: "the connection closed or the request was cancelled before the last reply".
    waiting().until(() -> failures.size() == 1);
    assertThat(failures.get(0)).isInstanceOf(CancellationException.class);
    assertThat(serverSide.pendingSink(id)).isNull();
    assertThat(replies).isEmpty();
    assertThat(serverSide.isOpen()).isTrue();
  }

  @Test
  void cancellingARequestCompletesItsFuture() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    endpoint.behaviour = (conn, r) -> {}; // never answers
    long[] id = new long[1];
    CompletableFuture<Message> future =
        c.request(rid -> {
          id[0] = rid;
          return new Message.GetCopyState(rid, 1);
        });
    c.cancel(id[0]);
    assertThat(failure(future)).isInstanceOf(CancellationException.class);
    assertThat(future.isCancelled()).isTrue();
    endpoint.behaviour = null;
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @Test
  void streamCancelledBeforeTheSenderStartsItDoesNotLinger() throws Exception {
    randomFile("late.bin", 1024 * 1024, seed.random());
    TransportServer server = server(config().zeroCopy(false).build());
    Connection c = connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);
    CountDownLatch fetchReceived = new CountDownLatch(1);
    CountDownLatch mayStream = new CountDownLatch(1);
    CountDownLatch streamed = new CountDownLatch(1);
    endpoint.behaviour = (conn, r) -> {
      switch (r) {
        case Message.FetchFile f -> {
          fetchReceived.countDown();
          assertThat(mayStream.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
          conn.streamFile(f, dir.resolve(f.name()));
          streamed.countDown();
        }
        default -> conn.reply(new Message.Ack(r.requestId()));
      }
    };

    InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "late.bin", 0);
    assertThat(fetchReceived.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
    s.close(); // sends Cancel while the request thread still holds the fetch
    assertThat(ping(c)).isInstanceOf(Message.Ack.class); // so the Cancel has been handled by now
    mayStream.countDown();
    assertThat(streamed.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

    // The sender must not keep a stream (with an open file and a slot of maxRequestsInFlight) that
    // nobody reads until the connection closes.
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> outboundStreams(serverSide) == 0);
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @Test
  void serverClosingFailsPendingRequestsWithConnectionException() throws Exception {
    TransportServer server = server();
    randomFile("big.bin", 4 * 1024 * 1024, seed.random());
    Connection c = connect(server);
    endpoint.behaviour = (conn, r) -> {
      if (r instanceof Message.FetchFile f) {
        conn.streamFile(f, dir.resolve(f.name()));
      }
      // pings are never answered
    };
    CompletableFuture<Message> pending = c.request(Message.Ping::new);
    InboundFileStream stream = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "big.bin", 0);
    closeables.add(stream);
    byte[] first = new byte[1000];
    stream.readFully(first, 0, first.length);
    waiting().until(() -> endpoint.requests.size() == 2);

    server.transport().close();

    assertThat(failure(pending)).isInstanceOf(ConnectionException.class);
    assertThatThrownBy(() -> readAll(stream, seed.random())).isInstanceOf(ConnectionException.class);
    c.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(c.isOpen()).isFalse();
    waiting().until(() -> clientHandler.closed.contains(c));
    assertThat(failure(c.request(Message.Ping::new))).isInstanceOf(ConnectionException.class);
  }

  @Test
  void clientClosingNotifiesTheEndpoint() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    c.close();
    c.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    waiting().until(() -> endpoint.closed.size() == 1);
    assertThat(endpoint.closed.get(0)).isSameAs(endpoint.connected.get(0));
    assertThat(endpoint.connected.get(0).isOpen()).isFalse();
  }

  @Test
  void unregisteringTheEndpointClosesItsConnections() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    server.unregister(INDEX, endpoint);
    c.closeFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Throwable t = failure(client(config().build()).connect(server.localAddress(), CLUSTER, INDEX, 1, PeerRole.REPLICA, clientHandler));
    assertThat(((ClusterMismatchException) t).code()).isEqualTo(ErrorCode.UNKNOWN_INDEX);
  }

  @Test
  void closedTransportRefusesWork() throws Exception {
    TransportServer server = server();
    Transport client = client(config().build());
    client.close();
    assertThat(failure(client.connect(server.localAddress(), CLUSTER, INDEX, 1, PeerRole.REPLICA, clientHandler)))
        .isInstanceOf(NodeClosedException.class);
    assertThatThrownBy(() -> client.bind("127.0.0.1", 0, CLUSTER)).isInstanceOf(NodeClosedException.class);
    assertThatThrownBy(() -> server.transport().bind("127.0.0.1", 0, CLUSTER)).isInstanceOf(IllegalStateException.class);
  }

  // ---------------------------------------------------------------- file streaming

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void streamsAWholeFileWithFlowControl(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    int size = 3 * 1024 * 1024 + random.nextInt(CHUNK);
    Path file = randomFile("_0.cfs", size, random);
    TransportServer server = server(config().zeroCopy(zeroCopy).build());
    Connection c = connect(server);

    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 9, "_0.cfs", 0)) {
      assertThat(s.length()).isEqualTo(size);
      byte[] received = readAll(s, random);
      assertThat(received).as("seed=%d", seed.seed()).isEqualTo(Files.readAllBytes(file));
      assertThat(s.position()).isEqualTo(size);
      assertThat(s.read(new byte[1], 0, 1)).isEqualTo(-1);
    }
    Message.FetchFile request = (Message.FetchFile) endpoint.requests.poll(WAIT.toSeconds(), TimeUnit.SECONDS);
    assertThat(request.windowBytes()).isEqualTo(WINDOW);
    assertThat(request.sourceKind()).isEqualTo(Message.SourceKind.COPY_STATE);
    assertThat(request.sourceId()).isEqualTo(9);
    assertThat(request.offset()).isZero();
    assertThat(outboundStreams(endpoint.connected.get(0))).isZero();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  /**
   * Each transport counts what its sockets sent and received, per peer and index: what one side sent
   * is exactly what the other received, and a file streamed costs its bytes plus little framing.
   */
  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void countsTheBytesSentAndReceivedPerPeer(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    int size = 2 * 1024 * 1024 + random.nextInt(CHUNK);
    randomFile("_2.cfs", size, random);
    TransportServer server = server(config().zeroCopy(zeroCopy).build());
    Transport client = client(config().build());
    Connection c = connect(client, server);
    Traffic before = server.transport().traffic(INDEX, CLIENT_NODE);
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 9, "_2.cfs", 0)) {
      readAll(s, random);
    }
    int serverNode = c.peerNodeId();
    waiting().untilAsserted(() -> {
      Traffic sent = server.transport().traffic(INDEX, CLIENT_NODE);
      Traffic seen = client.traffic(INDEX, serverNode);
      assertThat(seen.bytesReceived()).as("seed=%d", seed.seed()).isEqualTo(sent.bytesSent());
      assertThat(sent.bytesReceived()).isEqualTo(seen.bytesSent());
    });
    long streamed = server.transport().traffic(INDEX, CLIENT_NODE).bytesSent() - before.bytesSent();
    assertThat(streamed).as("seed=%d", seed.seed()).isBetween((long) size, size + size / 100 + 4096L);
    assertThat(server.transport().traffic().bytesSent()).isGreaterThanOrEqualTo(streamed);
    assertThat(server.transport().trafficByPeer(INDEX)).containsKey(CLIENT_NODE);
    assertThat(server.transport().traffic("other", CLIENT_NODE)).isEqualTo(Traffic.NONE);
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void resumesFromAnOffset(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    int size = 1024 * 1024 + random.nextInt(1000);
    Path file = randomFile("_1.cfs", size, random);
    byte[] all = Files.readAllBytes(file);
    TransportServer server = server(config().zeroCopy(zeroCopy).build());
    Connection c = connect(server);

    for (long offset : new long[] {1, CHUNK, size / 3 + 7, size - 1}) {
      try (InboundFileStream s = c.fetchFile(Message.SourceKind.MERGE_PRECOPY, 2, "_1.cfs", offset)) {
        assertThat(s.position()).isEqualTo(offset);
        assertThat(s.length()).isEqualTo(size);
        byte[] tail = readAll(s, random);
        assertThat(tail).as("seed=%d offset=%d", seed.seed(), offset).isEqualTo(Arrays.copyOfRange(all, (int) offset, size));
      }
    }
    // At the very end: a header and nothing else.
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 2, "_1.cfs", size)) {
      assertThat(s.length()).isEqualTo(size);
      assertThat(s.read(new byte[10], 0, 10)).isEqualTo(-1);
    }
    // Past the end: refused.
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 2, "_1.cfs", size + 1L)) {
      assertThatThrownBy(s::length).isInstanceOf(FileNotServableException.class).hasMessageContaining("past the end");
    }
  }

  @Test
  void emptyFileStreamsAsJustAHeader() throws Exception {
    Files.write(dir.resolve("empty"), new byte[0]);
    TransportServer server = server();
    Connection c = connect(server);
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "empty", 0)) {
      assertThat(s.length()).isZero();
      assertThat(s.read(new byte[10], 0, 10)).isEqualTo(-1);
    }
  }

  @Test
  void unservableFilesFailTheStreamWithFileNotServableException() throws Exception {
    TransportServer server = server();
    Connection c = connect(server);
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "../secret", 0)) {
      assertThatThrownBy(s::length).isInstanceOf(FileNotServableException.class).hasMessageContaining("unsafe name");
      // The failure is sticky.
      assertThatThrownBy(() -> s.read(new byte[1], 0, 1)).isInstanceOf(FileNotServableException.class);
    }
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "missing.bin", 0)) {
      assertThatThrownBy(() -> s.readFully(new byte[1], 0, 1)).isInstanceOf(FileNotServableException.class).hasMessageContaining("missing.bin");
    }
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void severalStreamsShareOneConnection(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    int files = 6;
    List<byte[]> contents = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      contents.add(Files.readAllBytes(randomFile("f" + i, 256 * 1024 + random.nextInt(1024 * 1024), random)));
    }
    TransportServer server = server(config().zeroCopy(zeroCopy).build());
    Connection c = connect(server);
    ExecutorService pool = Executors.newFixedThreadPool(files);
    try {
      List<Future<byte[]>> results = new ArrayList<>();
      for (int i = 0; i < files; i++) {
        String name = "f" + i;
        long readSeed = random.nextLong();
        results.add(pool.submit(() -> {
          try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, name, 0)) {
            return readAll(s, new Random(readSeed));
          }
        }));
      }
      for (int i = 0; i < files; i++) {
        assertThat(results.get(i).get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("seed=%d file %d", seed.seed(), i).isEqualTo(contents.get(i));
      }
    } finally {
      pool.shutdownNow();
    }
    waiting().until(() -> outboundStreams(endpoint.connected.get(0)) == 0);
  }

  @Test
  void closingAStreamEarlyCancelsItOnTheSender() throws Exception {
    Random random = seed.random();
    Path file = randomFile("big.bin", 4 * 1024 * 1024, random);
    TransportServer server = server();
    Connection c = connect(server);
    waiting().until(() -> endpoint.connected.size() == 1);
    Connection serverSide = endpoint.connected.get(0);

    InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "big.bin", 0);
    byte[] head = new byte[10_000];
    s.readFully(head, 0, head.length);
    waiting().until(() -> outboundStreams(serverSide) == 1);
    s.close();
    s.close(); // idempotent
    waiting().until(() -> outboundStreams(serverSide) == 0);
    assertThat(head).isEqualTo(Arrays.copyOf(Files.readAllBytes(file), head.length));
    assertThatThrownBy(() -> s.read(new byte[1], 0, 1)).isInstanceOf(ConnectionException.class);

    // The connection is still good for requests and new streams.
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
    try (InboundFileStream again = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "big.bin", 0)) {
      assertThat(readAll(again, random)).isEqualTo(Files.readAllBytes(file));
    }
  }

  @Test
  void streamThatReceivesNothingFailsAfterTheReadTimeout() throws Exception {
    TransportServer server = server();
    Connection c = connect(client(config().readTimeout(Duration.ofMillis(300)).build()), server);
    endpoint.behaviour = (conn, r) -> {}; // accepts the fetch, never streams
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "whatever", 0)) {
      assertThatThrownBy(s::length).isInstanceOf(ConnectionException.class).hasMessageContaining("no file data");
    }
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void throttledLinkStillDeliversEveryByte(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    Path file = randomFile("slow.bin", 384 * 1024 + random.nextInt(1000), random);
    FaultInjection throttle = FaultInjection.builder().throttleBytesPerSecond(2 * 1024 * 1024).build();
    TransportServer server = server(config().zeroCopy(zeroCopy).faults(throttle).build());
    Connection c = connect(client(config().faults(throttle).build()), server);
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "slow.bin", 0)) {
      assertThat(readAll(s, random)).as("seed=%d", seed.seed()).isEqualTo(Files.readAllBytes(file));
    }
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void delayedLinkDelaysEachWayAndDeliversEveryByteInOrder(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    Path file = randomFile("far.bin", 256 * 1024 + random.nextInt(1000), random);
    FaultInjection delay = FaultInjection.builder().linkDelayMillis(40).switchable(true).build();
    TransportServer server = server(config().zeroCopy(zeroCopy).faults(delay).build());
    Transport client = client(config().faults(delay).build());
    Connection c = connect(client, server);
    long start = System.nanoTime();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).as("a round trip crosses the delay both ways")
        .isGreaterThanOrEqualTo(Duration.ofMillis(80));
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "far.bin", 0)) {
      assertThat(readAll(s, random)).as("seed=%d", seed.seed()).isEqualTo(Files.readAllBytes(file));
    }
    // Requests sent back to back are answered in order, each after the same delay.
    List<CompletableFuture<Message>> pings = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      pings.add(c.request(Message.Ping::new));
    }
    for (CompletableFuture<Message> p : pings) {
      assertThat(p.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(Message.Ack.class);
    }
    client.updateLinkDelay(0);
    server.transport().updateLinkDelay(0);
    assertThat(ping(c)).as("switched off while the connection stays open").isInstanceOf(Message.Ack.class);
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void bitFlipsOnTheReceivingSideAreCountedExactly(boolean zeroCopy) throws Exception {
    Random random = seed.random();
    Path file = randomFile("flaky.bin", 512 * 1024 + random.nextInt(CHUNK), random);
    byte[] original = Files.readAllBytes(file);
    TransportServer server = server(config().zeroCopy(zeroCopy).build());
    Transport client = client(config().faults(FaultInjection.builder().bitFlipProbability(1.0).seed(seed.seed()).build()).build());
    Connection c = connect(client, server);
    byte[] received;
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "flaky.bin", 0)) {
      received = readAll(s, random);
    }
    assertThat(received).hasSameSizeAs(original);
    long differingBits = 0;
    for (int i = 0; i < original.length; i++) {
      differingBits += Integer.bitCount((original[i] ^ received[i]) & 0xFF);
    }
    long flips = client.faultStats().bitFlipsInjected();
    assertThat(flips).as("one flip per chunk").isGreaterThanOrEqualTo(original.length / CHUNK);
    assertThat(differingBits).as("seed=%d", seed.seed()).isEqualTo(flips);
    assertThat(server.transport().faultStats().bitFlipsInjected()).isZero();
  }

  @Test
  void everyFlipIsHandedToTheReaderOrDiscardedWithItsStream() throws Exception {
    Random random = seed.random();
    Path file = randomFile("flips.bin", 768 * 1024 + random.nextInt(CHUNK), random);
    byte[] original = Files.readAllBytes(file);
    TransportServer server = server(config().build());
    Transport client = client(config().faults(FaultInjection.builder().bitFlipProbability(1.0).seed(seed.seed()).build()).build());
    Connection c = connect(client, server);
    FaultStats faults = client.faultStats();
    long read = 0;
    for (int round = 0; round < 3; round++) {
      // Read a random prefix (part of a chunk included), then close: queued chunks are dropped.
      int prefix = 1 + random.nextInt(original.length - 1);
      byte[] head = new byte[prefix];
      try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "flips.bin", 0)) {
        s.readFully(head, 0, prefix);
        long differing = 0;
        for (int i = 0; i < prefix; i++) {
          differing += Integer.bitCount((original[i] ^ head[i]) & 0xFF);
        }
        assertThat(s.flipsRead()).as("seed=%d prefix=%d", seed.seed(), prefix).isEqualTo(differing);
        read += s.flipsRead();
      }
    }
    // A stream read to its end comes after every chunk of the closed ones on this connection.
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "flips.bin", 0)) {
      assertThat(readAll(s, random)).hasSameSizeAs(original);
      read += s.flipsRead();
      assertThat(s.flipsRead()).as("one flip per chunk").isGreaterThanOrEqualTo(original.length / CHUNK);
    }
    long handedOut = read;
    waiting().until(() -> faults.flipCounts().pending() == handedOut);
    FaultStats.FlipCounts before = faults.flipCounts();
    assertThat(before.unaccounted()).isZero();
    assertThat(before.discarded()).as("seed=%d: closed streams drop chunks", seed.seed()).isPositive();
    faults.flipsResolved(FaultStats.FlipOutcome.DETECTED, handedOut);
    FaultStats.FlipCounts after = faults.flipCounts();
    assertThat(after.pending()).isZero();
    assertThat(after.detected()).isEqualTo(handedOut);
    assertThat(after.injected()).isEqualTo(after.detected() + after.discarded());
  }

  @Test
  void switchableFaultsTurnOnAndOffOnAnOpenConnection() throws Exception {
    Random random = seed.random();
    Path file = randomFile("switch.bin", 256 * 1024 + random.nextInt(CHUNK), random);
    byte[] original = Files.readAllBytes(file);
    TransportServer server = server(config().build());
    Transport client = client(config().faults(FaultInjection.builder().switchable(true).seed(seed.seed()).build()).build());
    Connection c = connect(client, server);
    assertThat(fetch(c, "switch.bin", random)).as("switchable but off: no flips").isEqualTo(original);
    assertThat(client.faultStats().bitFlipsInjected()).isZero();

    client.updateFaults(1.0, 4 * 1024 * 1024);
    byte[] flipped = fetch(c, "switch.bin", random);
    long flips = client.faultStats().bitFlipsInjected();
    assertThat(flips).as("seed=%d", seed.seed()).isGreaterThanOrEqualTo(original.length / CHUNK);
    assertThat(flipped).isNotEqualTo(original);

    client.updateFaults(0.0, 0);
    assertThat(fetch(c, "switch.bin", random)).as("switched off again").isEqualTo(original);
    assertThat(client.faultStats().bitFlipsInjected()).isEqualTo(flips);
  }

  @Test
  void faultsOfANonSwitchableTransportCannotChange() throws Exception {
    Transport client = client(config().build());
    assertThatThrownBy(() -> client.updateFaults(0.5, 0)).isInstanceOf(IllegalStateException.class);
    Transport switchable = client(config().faults(FaultInjection.builder().switchable(true).build()).build());
    assertThatThrownBy(() -> switchable.updateFaults(1.5, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bitFlipProbability");
  }

  private static byte[] fetch(Connection c, String name, Random random) throws Exception {
    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, name, 0)) {
      return readAll(s, random);
    }
  }

  /** Number of file streams the connection is sending, read on its event loop. */
  private static int outboundStreams(Connection c) throws Exception {
    return c.channel().eventLoop().submit(c.outbound::size).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }
}
