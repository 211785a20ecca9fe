package io.nrtcluster.stress.net;

import io.nrtcluster.stress.NodeProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A ZooKeeper ensemble of {@link ZkServerMain} processes, server {@code i} (0-based, ZooKeeper id
 * {@code i + 1}) in its own {@link NetLab} host, listening on that host's address only, so the lab's
 * cuts really cut it. Ticks are {@value #TICK_MILLIS} ms, so sessions of 1 to 10 s are honoured.
 *
 * <p>Guarantees: {@link #start} returns only once the ensemble serves a client session from the root
 * namespace (or throws, killing what it started); server {@code i} keeps its data, transaction log
 * included, in {@code <dir>/zk<i+1>/version-2} and its output in {@code <dir>/zk<i+1>.log} (appended
 * across restarts); {@link #kill} returns once the process is gone; {@link #restart} returns once the
 * server serves again; {@link #close} kills every server and leaves the data in place.
 */
public final class ZkProcessEnsemble implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZkProcessEnsemble.class);
  public static final int CLIENT_PORT = 2181;
  public static final int QUORUM_PORT = 2888;
  public static final int ELECTION_PORT = 3888;
  public static final int TICK_MILLIS = 500;
  private static final int HEAP_MB = 192;
  private static final Duration KILL_WAIT = Duration.ofSeconds(10);

  private final List<Host> hosts;
  private final Path dir;
  private final Duration timeout;
  private final List<String> serverList;
  private final AtomicReferenceArray<Process> processes;

  private ZkProcessEnsemble(List<Host> hosts, Path dir, Duration timeout) {
    this.hosts = List.copyOf(hosts);
    this.dir = dir;
    this.timeout = timeout;
    this.serverList = IntStream.range(0, hosts.size())
        .mapToObj(i -> (i + 1) + "=" + hosts.get(i).address() + ":" + QUORUM_PORT + ":" + ELECTION_PORT).toList();
    this.processes = new AtomicReferenceArray<>(hosts.size());
  }

  /**
   * Starts one server in each of {@code hosts} (hosts of a live {@link NetLab}), data under {@code dir},
   * and waits up to {@code timeout} until the ensemble serves.
   *
   * @throws IOException a server could not be started, exited, or the ensemble did not serve in time
   */
  public static ZkProcessEnsemble start(List<Host> hosts, Path dir, Duration timeout) throws IOException {
    if (hosts.isEmpty()) {
      throw new IllegalArgumentException("hosts: an ensemble needs at least one");
    }
    Files.createDirectories(dir);
    ZkProcessEnsemble e = new ZkProcessEnsemble(hosts, dir, timeout);
    try {
      for (int i = 0; i < hosts.size(); i++) {
        e.launch(i);
      }
      e.awaitServing(e.connectString(), IntStream.range(0, hosts.size()).boxed().toList());
    } catch (IOException | RuntimeException ex) {
      e.close();
      throw ex;
    }
    LOG.info("netlab: ZooKeeper ensemble serves at {}", e.connectString());
    return e;
  }

  /** {@code ip:2181,...} of every server. */
  public String connectString() {
    return hosts.stream().map(h -> h.address() + ":" + CLIENT_PORT).collect(Collectors.joining(","));
  }

  /** {@code ip:2181} of server {@code i} alone. */
  public String connectString(int i) {
    return hosts.get(i).address() + ":" + CLIENT_PORT;
  }

  public int size() {
    return hosts.size();
  }

  public Host host(int i) {
    return hosts.get(i);
  }

  /** Server {@code i}'s data directory; its transaction logs are in {@code version-2} under it. */
  public Path dataDir(int i) {
    return dir.resolve("zk" + (i + 1));
  }

  public Path logFile(int i) {
    return dir.resolve("zk" + (i + 1) + ".log");
  }

  public boolean isAlive(int i) {
    Process p = processes.get(i);
    return p != null && p.isAlive();
  }

  /** The pid of server {@code i}'s JVM, or -1 if it never ran. */
  public long pid(int i) {
    Process p = processes.get(i);
    return p == null ? -1 : p.pid();
  }

  /** SIGKILLs server {@code i} and waits until it is gone; does nothing if it is not running. */
  public void kill(int i) throws IOException {
    Process p = processes.get(i);
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroyForcibly();
    try {
      if (!p.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException("zk" + (i + 1) + " (pid " + p.pid() + ") survived SIGKILL for " + KILL_WAIT.toMillis()
            + " ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while killing zk" + (i + 1), e);
    }
    LOG.info("netlab: killed zk{} (pid {})", i + 1, p.pid());
  }

  /** Starts server {@code i} again (it must be down) and waits until it serves clients itself. */
  public void restart(int i) throws IOException {
    if (isAlive(i)) {
      throw new IllegalStateException("zk" + (i + 1) + " is running");
    }
    launch(i);
    awaitServing(connectString(i), List.of(i));
    LOG.info("netlab: restarted zk{} (pid {})", i + 1, pid(i));
  }

  /** SIGKILLs every server still running; the data stays. */
  @Override
  public void close() throws IOException {
    IOException first = null;
    for (int i = 0; i < size(); i++) {
      try {
        kill(i);
      } catch (IOException e) {
        first = first == null ? e : first;
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private synchronized void launch(int i) throws IOException {
    Process old = processes.get(i);
    if (old != null && old.isAlive()) {
      throw new IllegalStateException("zk" + (i + 1) + " is running");
    }
    Path data = Files.createDirectories(dataDir(i));
    Path log = logFile(i);
    Files.writeString(log, "---- start ----\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    List<String> cmd = new ArrayList<>();
    for (String arg : NodeProcess.java(dir, HEAP_MB, List.of("-XX:+UseSerialGC"))) {
      // The server's own logging (elections, sessions) instead of the node processes' config.
      cmd.add(arg.startsWith("-Dlogback.configurationFile=")
          ? "-Dlogback.configurationFile=io/nrtcluster/stress/net/zk-logback.xml" : arg);
    }
    cmd.addAll(List.of(ZkServerMain.class.getName(), "--id", Integer.toString(i + 1), "--data", data.toString(),
        "--address", hosts.get(i).address(), "--client-port", Integer.toString(CLIENT_PORT),
        "--tick-ms", Integer.toString(TICK_MILLIS)));
    for (String s : serverList) {
      cmd.addAll(List.of("--server", s));
    }
    Process p = new ProcessBuilder(hosts.get(i).wrap(cmd)).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
    processes.set(i, p);
  }

  /** Waits (bounded by the ensemble's timeout) until {@code connectString} serves, failing early if one of {@code watched} exits. */
  private void awaitServing(String connectString, List<Integer> watched) throws IOException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      for (int i : watched) {
        Process p = processes.get(i);
        if (p == null || !p.isAlive()) {
          throw new IOException("zk" + (i + 1) + " exited" + (p == null ? "" : " with code " + p.exitValue())
              + " while starting; see " + logFile(i));
        }
      }
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) {
        throw new IOException("ZooKeeper at " + connectString + " did not serve within " + timeout.toMillis()
            + " ms; see " + dir + "/zk*.log");
      }
      if (ZkProbe.serves(connectString, Duration.ofMillis(Math.min(left, 3_000)))) {
        return;
      }
      try {
        Thread.sleep(100); // a refused probe can fail at once; do not spin on it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for ZooKeeper at " + connectString, e);
      }
    }
  }
}
