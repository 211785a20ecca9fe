package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.netty.handler.ssl.SslHandler;
import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.common.RequestTimeoutException;
import io.nrtcluster.common.TlsConfigException;
import io.nrtcluster.common.TlsHandshakeException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Transports with TLS on loopback, with key material made at run time: who is let in, who is
 * refused and how, that files stream in chunks through TLS, and that bad key material is reported
 * at startup naming the file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsTransportTest {
  private static final String CLUSTER = "c1";
  private static final String INDEX = "idx";
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static TestCertificates.Authority ca;
  private static TestCertificates.Authority otherCa;

  @RegisterExtension final TestSeed seed = new TestSeed();
  @TempDir Path dir;

  private final List<Transport> transports = new ArrayList<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();
  private TransportLoopbackTest.TestEndpoint endpoint;

  @BeforeAll
  static void authorities() {
    ca = TestCertificates.authority("cluster-ca");
    otherCa = TestCertificates.authority("other-ca");
  }

  @AfterEach
  void tearDown() throws Exception {
    WireTestUtil.closeAll(closeables, transports);
  }

  private static TransportConfig.Builder config() {
    return TransportConfig.builder().ioThreads(2).requestThreads(4).chunkBytes(16 * 1024).streamWindowBytes(64 * 1024)
        .handshakeTimeout(Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(15)).readTimeout(Duration.ofSeconds(15));
  }

  /** TLS settings of a node named {@code name} whose certificate {@code issuer} signed, trusting {@code ca}. */
  private TlsConfig.Builder pem(String name, TestCertificates.Authority issuer) throws IOException {
    return issuer.issueLoopback(name).pem(dir.resolve(name), ca);
  }

  private Transport transport(String name, TransportConfig config) throws NrtClusterException {
    Transport t = Transport.create(name, config);
    transports.add(t);
    return t;
  }

  private TransportServer server(TlsConfig tls) throws NrtClusterException {
    return server(config().tls(tls).build());
  }

  private TransportServer server(TransportConfig config) throws NrtClusterException {
    TransportServer server = transport("srv", config).bind("127.0.0.1", 0, CLUSTER);
    endpoint = new TransportLoopbackTest.TestEndpoint(dir);
    server.register(INDEX, endpoint);
    return server;
  }

  private CompletableFuture<Connection> connect(Transport client, TransportServer server) {
    return client.connect(server.localAddress(), CLUSTER, INDEX, 3, PeerRole.REPLICA, new TransportLoopbackTest.RecordingHandler());
  }

  private Connection goodClient(TransportServer server) throws Exception {
    Transport client = transport("good", config().tls(pem("good", ca).hostnameVerification(true).build()).build());
    return connect(client, server).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private Connection serverSide() {
    await().atMost(WAIT).until(() -> !endpoint.connected.isEmpty());
    return endpoint.connected.get(0);
  }

  private static Message ping(Connection c) throws Exception {
    return c.request(Message.Ping::new).get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> future) throws Exception {
    try {
      Object value = future.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + value);
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  /** The server refused that client, and still serves a client with a good certificate. */
  private void assertStillServesGoodPeers(TransportServer server) throws Exception {
    assertThat(endpoint.connected).as("no refused peer reached the endpoint").isEmpty();
    Connection good = goodClient(server);
    assertThat(ping(good)).isInstanceOf(Message.Ack.class);
  }

  enum Format { PEM, KEY_STORE }

  private TlsConfig.Builder material(Format format, String name) throws IOException {
    TestCertificates.Identity id = ca.issueLoopback(name);
    return format == Format.PEM ? id.pem(dir.resolve(name), ca) : id.keyStores(dir.resolve(name), "secret-" + name, ca);
  }

  // ---------------------------------------------------------------- what works

  @ParameterizedTest(name = "{0}")
  @EnumSource(Format.class)
  void mutuallyAuthenticatedPeersExchangeRequestsAndStreamFilesInChunks(Format format) throws Exception {
    Random random = seed.random();
    byte[] data = new byte[1024 * 1024 + random.nextInt(64 * 1024)];
    random.nextBytes(data);
    Files.write(dir.resolve("_0.cfs"), data);
    // zeroCopy(true) is asked for, but a FileRegion cannot pass through TLS: chunks must be used.
    TransportServer server = server(config().zeroCopy(true).tls(material(format, "server").hostnameVerification(true).build()).build());
    Transport client = transport("cli", config().tls(material(format, "client").hostnameVerification(true).build()).build());
    Connection c = connect(client, server).get(WAIT.toSeconds(), TimeUnit.SECONDS);

    assertThat(c.channel().pipeline().get(SslHandler.class)).isNotNull();
    assertThat(ping(c)).isInstanceOf(Message.Ack.class);
    Connection serverSide = serverSide();
    assertThat(serverSide.useZeroCopy()).as("TLS forces chunked file writes").isFalse();
    SslHandler serverTls = serverSide.channel().pipeline().get(SslHandler.class);
    assertThat(serverTls.engine().getSession().getProtocol()).isEqualTo("TLSv1.3");
    assertThat(serverTls.engine().getSession().getPeerCertificates()).as("the client showed its certificate").isNotEmpty();

    try (InboundFileStream s = c.fetchFile(Message.SourceKind.COPY_STATE, 1, "_0.cfs", 0)) {
      byte[] received = new byte[(int) s.length()];
      s.readFully(received, 0, received.length);
      assertThat(received).as("seed=%d", seed.seed()).isEqualTo(data);
      assertThat(s.read(new byte[1], 0, 1)).isEqualTo(-1);
    }
  }

  @Test
  void plaintextTransportsKeepZeroCopy() throws Exception {
    TransportServer server = server(config().zeroCopy(true).build());
    Transport client = transport("cli", config().build());
    connect(client, server).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    Connection serverSide = serverSide();
    assertThat(serverSide.channel().pipeline().get(SslHandler.class)).isNull();
    assertThat(serverSide.useZeroCopy()).isTrue();
  }

  // ---------------------------------------------------------------- who is refused

  @Test
  void clientWithACertificateOfAnotherAuthorityIsRefused() throws Exception {
    TransportServer server = server(pem("server", ca).hostnameVerification(true).build());
    // Trusts the cluster's CA (so it accepts the server) but its own certificate is signed by another one.
    Transport stranger = transport("stranger", config().tls(pem("stranger", otherCa).hostnameVerification(true).build()).build());

    Throwable t = failure(connect(stranger, server));
    assertThat(t).isInstanceOf(TlsHandshakeException.class);
    assertThat(((NrtClusterException) t).code()).isEqualTo(ErrorCode.TLS_HANDSHAKE);
    assertStillServesGoodPeers(server);
  }

  @Test
  void serverWithACertificateOfAnotherAuthorityIsRefusedByTheClient() throws Exception {
    TransportServer server = server(pem("impostor", otherCa).hostnameVerification(true).build());
    Transport client = transport("cli", config().tls(pem("client", ca).hostnameVerification(true).build()).build());
    Throwable t = failure(connect(client, server));
    assertThat(t).isInstanceOf(TlsHandshakeException.class).hasMessageContaining(server.localAddress().toString());
    assertThat(endpoint.connected).isEmpty();
  }

  @Test
  void clientWithoutAnyCertificateIsRefused() throws Exception {
    TransportServer server = server(pem("server", ca).hostnameVerification(true).build());
    // A plain JDK TLS client that trusts the server but has no key of its own.
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", ca.certificate());
    TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext context = SSLContext.getInstance("TLSv1.3");
    context.init(null, tmf.getTrustManagers(), null);
    try (SSLSocket s = (SSLSocket) context.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(), server.localAddress().port())) {
      s.setSoTimeout((int) WAIT.toMillis());
      s.startHandshake(); // the client's half completes; TLS 1.3 servers judge the client afterwards
      assertThatThrownBy(() -> {
        s.getOutputStream().write(WireTestUtil.encode(new Message.Hello(1, WireFormat.PROTOCOL_VERSION, CLUSTER, INDEX, 9, PeerRole.CLIENT)));
        s.getOutputStream().flush();
        InputStream in = s.getInputStream();
        if (in.read() == -1) {
          throw new SocketException("closed by the server");
        }
      }).as("the server answers no byte of the protocol").isInstanceOf(IOException.class);
    }
    assertStillServesGoodPeers(server);
  }

  @Test
  void plaintextClientAgainstATlsServerIsRefusedCleanly() throws Exception {
    TransportServer server = server(pem("server", ca).hostnameVerification(true).build());
    Transport plain = transport("plain", config().build());
    Throwable t = failure(connect(plain, server));
    assertThat(t).isInstanceOf(ConnectionException.class);
    assertStillServesGoodPeers(server);
  }

  @Test
  void tlsClientAgainstAPlaintextServerIsRefused() throws Exception {
    TransportServer server = server(config().build());
    Transport client = transport("cli", config().tls(pem("client", ca).hostnameVerification(true).build()).build());
    Throwable t = failure(connect(client, server));
    assertThat(t).isInstanceOf(TlsHandshakeException.class);
    assertThat(endpoint.connected).isEmpty();
  }

  @Test
  void hostnameVerificationRefusesACertificateThatDoesNotNameTheHost() throws Exception {
    TestCertificates.Identity elsewhere = ca.issue("elsewhere", List.of("db.example.org"), List.of("10.1.2.3"));
    TransportServer server = server(elsewhere.pem(dir.resolve("elsewhere"), ca).hostnameVerification(true).build());

    Transport verifying = transport("verifying", config().tls(pem("v", ca).hostnameVerification(true).build()).build());
    Throwable t = failure(connect(verifying, server));
    assertThat(t).isInstanceOf(TlsHandshakeException.class);
    assertThat(endpoint.connected).isEmpty();

    // The same certificate is fine for a client that was told not to check names.
    Transport trusting = transport("trusting", config().tls(pem("t", ca).hostnameVerification(false).build()).build());
    assertThat(ping(connect(trusting, server).get(WAIT.toSeconds(), TimeUnit.SECONDS))).isInstanceOf(Message.Ack.class);
  }

  // ---------------------------------------------------------------- deadlines

  @Test
  void peerThatNeverStartsTlsIsDroppedAtTheHandshakeDeadline() throws Exception {
    // Long enough for a good peer's handshake on a busy machine: it must get through afterwards.
    TransportServer server = server(config().handshakeTimeout(Duration.ofSeconds(2))
        .tls(pem("server", ca).hostnameVerification(true).build()).build());
    for (byte[] prefix : new byte[][] {new byte[0], {0x16, 0x03, 0x01, 0x02, 0x00, 0x01}}) {
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.localAddress().port())) {
        s.setSoTimeout((int) WAIT.toMillis());
        s.getOutputStream().write(prefix); // nothing, or the start of a ClientHello that never ends
        assertThat(readUntilClosed(s.getInputStream())).as("closed, prefix %d bytes", prefix.length).isTrue();
      }
    }
    assertStillServesGoodPeers(server);
  }

  @Test
  void serverThatNeverAnswersTlsTimesOut() throws Exception {
    ServerSocket silent = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
    closeables.add(silent);
    Transport client = transport("cli", config().handshakeTimeout(Duration.ofMillis(300))
        .tls(pem("client", ca).hostnameVerification(true).build()).build());
    Throwable t = failure(client.connect(new NodeAddress("127.0.0.1", silent.getLocalPort()), CLUSTER, INDEX, 1,
        PeerRole.REPLICA, new TransportLoopbackTest.RecordingHandler()));
    assertThat(t).isInstanceOf(RequestTimeoutException.class);
  }

  /** True once the peer closed the connection (end of stream or reset), reading whatever it sent. */
  private static boolean readUntilClosed(InputStream in) throws IOException {
    try {
      while (in.read() != -1) {
        // an alert, if any
      }
      return true;
    } catch (SocketException reset) {
      return true;
    }
  }

  // ---------------------------------------------------------------- settings

  @Test
  void hostnameVerificationMustBeChosen() throws Exception {
    TlsConfig.Builder b = pem("n", ca);
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("transport.tls.hostnameVerification must be set explicitly");
    assertThat(b.hostnameVerification(false).build().clientAuthRequired()).as("mutual by default").isTrue();
  }

  @Test
  void settingsNameTheBadField() throws Exception {
    TlsConfig good = pem("n", ca).hostnameVerification(true).build();
    Path missing = dir.resolve("nope.pem");
    assertThatThrownBy(() -> TlsConfig.builder().pem(good.certChain(), missing, good.trustedCerts()).hostnameVerification(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("transport.tls.privateKey: " + missing);
    assertThatThrownBy(() -> TlsConfig.builder().hostnameVerification(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key material must be set");
    assertThatThrownBy(() -> TlsConfig.builder().pem(good.certChain(), good.privateKey(), good.trustedCerts())
        .keyStore(good.certChain(), "x").trustStore(good.trustedCerts(), "x").hostnameVerification(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not both");
    assertThatThrownBy(() -> pem("p", ca).protocols("TLSv1").hostnameVerification(true).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("transport.tls.protocols");
    assertThat(good.toString()).doesNotContain("secret");
    TlsConfig stores = ca.issueLoopback("s").keyStores(dir.resolve("s"), "secret-pw", ca).hostnameVerification(true).build();
    assertThat(stores.toString()).doesNotContain("secret-pw");
  }

  @Test
  void unusableKeyMaterialFailsAtStartupNamingTheFile() throws Exception {
    TlsConfig good = pem("n", ca).hostnameVerification(true).build();
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n");
    Path notACert = Files.writeString(dir.resolve("not-a-cert.pem"), "hello\n");

    assertConfigRefused(TlsConfig.builder().pem(good.certChain(), garbage, good.trustedCerts()), "transport.tls.privateKey", garbage);
    assertConfigRefused(TlsConfig.builder().pem(notACert, good.privateKey(), good.trustedCerts()), "transport.tls.certChain", notACert);
    assertConfigRefused(TlsConfig.builder().pem(good.certChain(), good.privateKey(), notACert), "transport.tls.trustedCerts", notACert);

    TlsConfig stores = ca.issueLoopback("s").keyStores(dir.resolve("s"), "right", ca).hostnameVerification(true).build();
    assertConfigRefused(TlsConfig.builder().keyStore(stores.keyStore(), "wrong").trustStore(stores.trustStore(), "right"),
        "transport.tls.keyStore", stores.keyStore());
    assertConfigRefused(TlsConfig.builder().keyStore(stores.keyStore(), "right").trustStore(stores.trustStore(), "wrong"),
        "transport.tls.trustStore", stores.trustStore());
    // A store of certificates only is no key store: the node would have no identity.
    assertConfigRefused(TlsConfig.builder().keyStore(stores.trustStore(), "right").trustStore(stores.trustStore(), "right"),
        "transport.tls.keyStore", stores.trustStore());
  }

  private static void assertConfigRefused(TlsConfig.Builder tls, String field, Path file) {
    TransportConfig config = config().tls(tls.hostnameVerification(true).build()).build();
    assertThatThrownBy(() -> Transport.create("bad", config).close())
        .isInstanceOf(TlsConfigException.class)
        .hasMessageStartingWith(field)
        .hasMessageContaining(file.toString())
        .satisfies(e -> assertThat(((NrtClusterException) e).code()).isEqualTo(ErrorCode.TLS_CONFIG));
  }
}
