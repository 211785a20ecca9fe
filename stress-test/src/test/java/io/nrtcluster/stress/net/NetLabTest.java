package io.nrtcluster.stress.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.stress.NodeProcess;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real namespaces, veths, bridge, routes, rules and qdiscs (root only): what a cut, a partition and a
 * slow link do to real TCP and UDP traffic between hosts, and that nothing outlives the lab.
 */
class NetLabTest {
  private static final int PORT = 7070;
  private static final Duration WAIT = Duration.ofSeconds(20);
  @TempDir Path dir;
  private final List<NetLab> labs = new ArrayList<>();
  private final List<Process> processes = new ArrayList<>();

  @AfterEach
  void cleanUp() throws Exception {
    processes.forEach(Process::destroyForcibly);
    for (NetLab lab : labs) {
      lab.close();
    }
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aOneWayCutDropsSilentlyOnlyThatDirectionTheHarnessStillReachesBothAndHealRestores() throws Exception {
    NetLab lab = lab("a", "b");
    Host a = lab.host("a");
    Host b = lab.host("b");
    assertThat(a.address()).startsWith("10.213.").isNotEqualTo(b.address());
    assertThat(lab.bridgeAddress()).endsWith(".1");
    serve(a);
    serve(b);
    assertThat(probeConnect(b, a, 2_000)).isEqualTo("OK");

    lab.cut(b, a);
    lab.cut(b, a); // idempotent
    assertThat(lab.cuts()).containsExactly(new NetLab.Cut(b, a, CutMode.DROP));
    assertThat(probeConnect(b, a, 1_000)).as("a connect from b to a sees silence").isEqualTo("TIMEOUT");
    // One way: datagrams b -> a are dropped, a -> b arrive. b's are sent first, so had they not been
    // dropped they would have arrived before a's are awaited.
    udp(b, a, 5);
    udp(a, b, 5);
    await().atMost(WAIT).until(() -> datagramsAt(b), n -> n == 5);
    assertThat(datagramsAt(a)).isZero();
    assertThat(reachable(a)).as("the harness reaches a cut host").isTrue();
    assertThat(reachable(b)).isTrue();

    lab.heal();
    assertThat(lab.cuts()).isEmpty();
    assertThat(probeConnect(b, a, 2_000)).isEqualTo("OK");
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void rejectFailsAtOnceAndAPartitionCutsEveryPairAcrossButNoneWithinASide() throws Exception {
    NetLab lab = lab("a", "b", "c");
    Host a = lab.host("a");
    Host b = lab.host("b");
    Host c = lab.host("c");
    serve(a);
    serve(c);

    lab.cut(b, a, CutMode.REJECT);
    long start = System.nanoTime();
    assertThat(probeConnect(b, a, 5_000)).startsWith("ERROR").contains("Permission denied");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    lab.uncut(b, a);
    assertThat(lab.cuts()).isEmpty();

    lab.partition(Set.of(a), Set.of(b, c));
    assertThat(lab.cuts()).hasSize(4);
    assertThat(probeConnect(b, a, 1_000)).isEqualTo("TIMEOUT");
    assertThat(probeConnect(c, a, 1_000)).isEqualTo("TIMEOUT");
    assertThat(probeConnect(b, c, 2_000)).as("within a side").isEqualTo("OK");
    assertThat(reachable(a)).isTrue();

    lab.heal();
    assertThat(probeConnect(c, a, 2_000)).isEqualTo("OK");
    assertThatThrownBy(() -> lab.partition(Set.of(a, b), Set.of(b))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void aSlowLinkIsSlowBothWaysUntilUnslowed() throws Exception {
    NetLab lab = lab("a");
    Host a = lab.host("a");
    serve(a);
    int bytes = 512 * 1024;
    assertThat(download(a, bytes)).isLessThan(Duration.ofSeconds(1));
    assertThat(upload(a, bytes)).isLessThan(Duration.ofSeconds(1));

    lab.slow(a, 2_000_000); // 512 KiB take about 2.1 s at 2 Mbit/s
    assertThat(lab.slowed()).containsEntry(a, 2_000_000L);
    assertThat(download(a, bytes)).as("from the host").isGreaterThan(Duration.ofMillis(1_500));
    assertThat(upload(a, bytes)).as("to the host").isGreaterThan(Duration.ofMillis(1_500));

    lab.unslow(a);
    assertThat(lab.slowed()).isEmpty();
    assertThat(download(a, bytes)).isLessThan(Duration.ofSeconds(1));
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void closeKillsEveryProcessInTheLabAndRemovesEveryNameItMade() throws Exception {
    NetLab lab = lab("a", "b");
    Process server = serve(lab.host("a"));
    Process sleeper = start(lab.host("b").wrap(List.of("sleep", "600")));
    await().atMost(WAIT).until(() -> lab.pids(lab.host("b")), pids -> pids.contains(sleeper.pid()));
    lab.cut(lab.host("a"), lab.host("b"));
    lab.slow(lab.host("b"), 1_000_000);
    String mark = lab.bridge().substring("nrtcb".length()); // <pid><letter>: in each of its names

    lab.close();
    assertThat(server.waitFor(10, TimeUnit.SECONDS)).isTrue();
    assertThat(sleeper.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Teardown t = new Teardown(NetLab.ipTool());
    assertThat(t.namespaces()).noneMatch(n -> n.contains(mark));
    assertThat(t.links()).noneMatch(n -> n.contains(mark));
    lab.close(); // idempotent
    assertThatThrownBy(() -> lab.cut(lab.host("a"), lab.host("b"))).isInstanceOf(NetLabException.class);
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void sweepRemovesTheLeftoversOfAHarnessThatDiedAndItsProcesses() throws Exception {
    assumeRoot();
    Process gone = new ProcessBuilder("true").start();
    assertThat(gone.waitFor(10, TimeUnit.SECONDS)).isTrue();
    long deadPid = gone.pid();
    LabNames stale = new LabNames(deadPid, 'z');
    String ip = NetLab.ipTool();
    String ns = stale.namespace("x");
    try {
      Cmd.check(ip, "link", "add", stale.bridge(), "type", "bridge");
      Cmd.check(ip, "netns", "add", ns);
      Cmd.check(ip, "link", "add", stale.veth(0), "type", "veth", "peer", "name", "eth0", "netns", ns);
      Cmd.check(ip, "link", "set", stale.veth(0), "master", stale.bridge());
      Process orphan = start(new Host("x", ns, "0.0.0.0").wrap(List.of("sleep", "600")));
      Teardown t = new Teardown(ip);
      await().atMost(WAIT).until(() -> t.pids(ns), pids -> pids.contains(orphan.pid()));

      assertThat(NetLab.sweepStale()).isEqualTo(3);
      assertThat(orphan.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(t.namespaces()).doesNotContain(ns);
      assertThat(t.links()).doesNotContain(stale.bridge(), stale.veth(0));
      assertThat(NetLab.sweepStale()).isZero();
    } finally {
      Cmd.run(List.of(ip, "netns", "delete", ns));
      Cmd.run(List.of(ip, "link", "delete", stale.veth(0)));
      Cmd.run(List.of(ip, "link", "delete", stale.bridge()));
    }
  }

  @Test
  @Timeout(value = 10, unit = TimeUnit.SECONDS)
  void refusesWithoutRootOrIpAndPicksASubnetNothingOverlaps() throws Exception {
    assertThatThrownBy(() -> Sys.requireUsable(OptionalLong.of(1000), Optional.of(Path.of("/usr/sbin/ip"))))
        .isInstanceOf(NetLabException.class).hasMessageContaining("root");
    assertThatThrownBy(() -> Sys.requireUsable(OptionalLong.of(0), Optional.empty()))
        .isInstanceOf(NetLabException.class).hasMessageContaining("`ip`");
    String addr = "1: lo    inet 127.0.0.1/8 scope host lo\n4: eth0    inet 10.213.0.7/24 brd 10.213.0.255 scope global";
    String routes = "default via 192.0.2.1 dev eth0\n10.213.1.0/24 dev nrtcb1a proto kernel\n"
        + "local 10.213.2.1 dev nrtcb2a table local proto kernel scope host src 10.213.2.1\n"
        + "blackhole 10.213.3.0/25\n";
    assertThat(Subnets.pickFree(addr, routes)).isEqualTo(4);
    assertThat(Subnets.pickFree("", "10.213.0.0/23 dev x\n")).isEqualTo(2);
    assertThatThrownBy(() -> Subnets.pickFree("", "10.0.0.0/8 dev x")).as("a wider route covers them all")
        .isInstanceOf(NetLabException.class);
    assertThat(LabNames.owner("nrtcb4194303z")).contains(new LabNames(4194303, 'z'));
    assertThat(new LabNames(4194303, 'z').veth(239)).hasSizeLessThanOrEqualTo(15);
    assertThat(LabNames.owner("nrtc-12a-zk1")).contains(new LabNames(12, 'a'));
    assertThat(LabNames.owner("eth0")).isEmpty();
  }

  private static void assumeRoot() {
    Assumptions.assumeTrue(NetLab.rootAvailable(), "network namespaces need root and iproute2");
  }

  private NetLab lab(String... hosts) throws NetLabException {
    assumeRoot();
    NetLab lab = NetLab.create("test", hosts);
    labs.add(lab);
    return lab;
  }

  private Process start(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("processes.log").toFile())).start();
    processes.add(p);
    return p;
  }

  private static List<String> probe(String... args) {
    List<String> cmd = new ArrayList<>(NodeProcess.java(Path.of("/tmp"), 48,
        List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC")));
    cmd.add(NetProbeMain.class.getName());
    cmd.addAll(List.of(args));
    return cmd;
  }

  /** Starts the probe server in {@code h} and waits until the harness reaches it. */
  private Process serve(Host h) throws IOException {
    Process p = start(h.wrap(probe("serve", h.address(), Integer.toString(PORT))));
    await().atMost(WAIT).until(() -> reachable(h));
    return p;
  }

  /** The probe's verdict on a TCP connect from {@code from} to {@code to}'s server. */
  private String probeConnect(Host from, Host to, int timeoutMs) throws Exception {
    Process p = new ProcessBuilder(from.wrap(probe("connect", to.address(), Integer.toString(PORT),
        Integer.toString(timeoutMs)))).redirectErrorStream(true).start();
    processes.add(p);
    String out;
    try (InputStream in = p.getInputStream()) {
      out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return out.lines().filter(l -> l.startsWith("OK") || l.startsWith("TIMEOUT") || l.startsWith("ERROR"))
        .findFirst().orElse(out);
  }

  private void udp(Host from, Host to, int n) throws Exception {
    Process p = start(from.wrap(probe("udp", to.address(), Integer.toString(PORT), Integer.toString(n))));
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
  }

  private static boolean reachable(Host h) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(h.address(), PORT), 1_000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static long datagramsAt(Host h) throws IOException {
    try (Socket s = connect(h)) {
      s.getOutputStream().write('U');
      return new DataInputStream(s.getInputStream()).readLong();
    }
  }

  private static Duration download(Host h, int bytes) throws IOException {
    long start = System.nanoTime();
    try (Socket s = connect(h)) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      out.write('S');
      out.writeLong(bytes);
      out.flush();
      assertThat(s.getInputStream().readAllBytes()).hasSize(bytes);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static Duration upload(Host h, int bytes) throws IOException {
    long start = System.nanoTime();
    try (Socket s = connect(h)) {
      s.getOutputStream().write('R');
      s.getOutputStream().write(new byte[bytes]);
      s.shutdownOutput();
      assertThat(new DataInputStream(s.getInputStream()).readLong()).isEqualTo(bytes);
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static Socket connect(Host h) throws IOException {
    Socket s = new Socket();
    s.connect(new InetSocketAddress(h.address(), PORT), 2_000);
    s.setSoTimeout(20_000);
    return s;
  }
}
