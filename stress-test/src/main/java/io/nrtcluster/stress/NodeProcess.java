package io.nrtcluster.stress;

import io.nrtcluster.stress.agent.AgentApi;
import io.nrtcluster.stress.agent.ChaosNodeMain;
import io.nrtcluster.stress.agent.JsonHttp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One chaos node as a real JVM process: started with the harness's own JDK and class path, its
 * output appended to {@code node.log} in its directory, reached through its {@link AgentClient}.
 * Knows how to kill it every way the chaos test needs (SIGKILL, SIGSEGV, {@code Runtime.halt},
 * SIGSTOP/SIGCONT) and restarts it on the same directory with the same id.
 */
public final class NodeProcess {
  /** What the harness did to the process last. */
  public enum State {
    UP,
    PAUSED,
    DOWN
  }

  private final int id;
  private final Path dir;
  private final List<String> command;
  private volatile Process process;
  private volatile AgentClient client;
  private volatile State state = State.DOWN;
  private volatile int incarnation;
  /** Counts what the harness began doing to the process (start, kill, crash, pause, resume, stop). */
  private final AtomicInteger disturbances = new AtomicInteger();
  /** Counts what the harness finished doing to it: equal to {@link #disturbances} when nothing is under way. */
  private final AtomicInteger settled = new AtomicInteger();
  private volatile int httpPort;
  private volatile String httpHost = "127.0.0.1";
  private volatile AgentApi.Ready ready;

  public NodeProcess(int id, Path dir, List<String> command) {
    this.id = id;
    this.dir = dir;
    this.command = command;
  }

  /** The command line that starts node {@code id}: this JVM's java and class path, the node's options. */
  static List<String> command(int id, Path dir, String zk, String cluster, String index, long sessionTimeoutMs,
      long faultSeed, int heapMb, int dropEveryNthWrite, int ackUnpublishedEvery, String bindHost) {
    List<String> cmd = java(dir, heapMb, List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
    cmd.addAll(List.of(ChaosNodeMain.class.getName(),
        "--zk", zk, "--cluster", cluster, "--index", index, "--data", dir.toString(), "--id", Integer.toString(id),
        "--session-timeout-ms", Long.toString(sessionTimeoutMs), "--fault-seed", Long.toString(faultSeed),
        "--drop-every-nth-write", Integer.toString(dropEveryNthWrite),
        "--ack-unpublished-every", Integer.toString(ackUnpublishedEvery), "--bind-host", bindHost));
    return cmd;
  }

  /**
   * The start of a node command line: this JVM's java and class path, the heap, crash files in the
   * node's directory, Lucene's vector module, node logging, and {@code vmOptions}; append the main
   * class and its arguments.
   */
  public static List<String> java(Path dir, int heapMb, List<String> vmOptions) {
    String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    List<String> cmd = new ArrayList<>(List.of(java, "-Xmx" + heapMb + "m"));
    cmd.addAll(vmOptions);
    cmd.addAll(List.of("-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"),
        "--add-modules", "jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED",
        "-Dlogback.configurationFile=io/nrtcluster/stress/agent/node-logback.xml",
        "-cp", System.getProperty("java.class.path")));
    return cmd;
  }

  public int id() {
    return id;
  }

  public Path dir() {
    return dir;
  }

  public State state() {
    return state;
  }

  /**
   * How many times the harness started, killed, crashed, paused, resumed or stopped it, or -1 while
   * it is doing so: a request whose answer was late or missing is the node's fault only if this was
   * the same, and not -1, before and after it.
   */
  int disturbances() {
    int done = settled.get();
    int begun = disturbances.get();
    return begun == done ? begun : -1;
  }

  /** How many times it was started. */
  int incarnation() {
    return incarnation;
  }

  AgentClient client() {
    return client;
  }

  /** The agent's status while the process is up and answers, else null (down, or not answering). */
  AgentApi.Status statusIfUp() {
    if (state() != State.UP) {
      return null;
    }
    try {
      return client.status();
    } catch (AgentException e) {
      return null;
    }
  }

  /** Address of the process's control endpoint (valid while it is up). */
  public String httpHost() {
    return httpHost;
  }

  /** What the process wrote once it served, last time it started (null before the first start). */
  public AgentApi.Ready ready() {
    return ready;
  }

  /** Port of the process's control endpoint (valid while it is up). */
  public int httpPort() {
    return httpPort;
  }

  /** Starts the process and waits (bounded) until it serves; a process that dies or hangs at start fails here. */
  public synchronized void start(long timeoutMillis) throws IOException {
    disturbances.incrementAndGet();
    try {
      if (state != State.DOWN) {
        throw new IllegalStateException("N" + id + " is " + state);
      }
      Files.createDirectories(dir);
      Path ready = dir.resolve(AgentApi.Ready.FILE);
      Files.deleteIfExists(ready);
      Path log = dir.resolve("node.log");
      Files.writeString(log, "---- start " + (incarnation + 1) + " ----\n", StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
      ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
      Process p = pb.start();
      process = p;
      incarnation++;
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
      while (!Files.exists(ready)) {
        if (!p.isAlive()) {
          state = State.DOWN;
          throw new IOException("N" + id + " exited with code " + p.exitValue() + " while starting; see " + log);
        }
        if (System.nanoTime() > deadline) {
          p.destroyForcibly();
          state = State.DOWN;
          throw new IOException("N" + id + " did not serve within " + timeoutMillis + " ms; see " + log);
        }
        try {
          p.waitFor(50, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          p.destroyForcibly();
          throw new IOException("interrupted while N" + id + " started", e);
        }
      }
      AgentApi.Ready r = JsonHttp.JSON.readValue(ready.toFile(), AgentApi.Ready.class);
      this.ready = r;
      httpPort = r.httpPort();
      httpHost = r.httpHost();
      client = new AgentClient(id, r.httpHost(), r.httpPort());
      state = State.UP;
    } finally {
      settled.incrementAndGet();
    }
  }

  /** SIGKILL, and waits for the process to be gone. */
  public synchronized void kill() {
    disturbances.incrementAndGet();
    try {
      Process p = process;
      if (p != null) {
        p.destroyForcibly();
        awaitExit(p, 10_000);
      }
      state = State.DOWN;
    } finally {
      settled.incrementAndGet();
    }
  }

  /** A JVM crash: SIGSEGV (HotSpot writes hs_err and aborts) or {@code Runtime.halt} through the endpoint. */
  synchronized void crash(boolean segfault) {
    disturbances.incrementAndGet();
    try {
      Process p = process;
      if (p == null) {
        return;
      }
      if (state == State.PAUSED) {
        signal("CONT");
      }
      if (segfault) {
        signal("SEGV");
      } else if (client != null) {
        client.halt();
      }
      if (!awaitExit(p, 15_000)) {
        p.destroyForcibly();
        awaitExit(p, 10_000);
      }
      state = State.DOWN;
    } finally {
      settled.incrementAndGet();
    }
  }

  /** SIGSTOP: the process goes silent with its sockets and ZooKeeper session open (nothing if it is not up). */
  public synchronized void pause() {
    disturbances.incrementAndGet();
    try {
      if (state == State.UP) {
        signal("STOP");
        state = State.PAUSED;
      }
    } finally {
      settled.incrementAndGet();
    }
  }

  /** SIGCONT of a paused process. */
  public synchronized void resume() {
    disturbances.incrementAndGet();
    try {
      if (state == State.PAUSED) {
        signal("CONT");
        state = State.UP;
      }
    } finally {
      settled.incrementAndGet();
    }
  }

  /** Graceful leave (commit, resign) through the endpoint; SIGKILL if it does not exit in time. */
  public synchronized boolean stopGracefully(long timeoutMillis) {
    disturbances.incrementAndGet();
    try {
      Process p = process;
      if (p == null || state == State.DOWN) {
        return true;
      }
      resume();
      try {
        client.shutdown();
      } catch (AgentException e) {
        p.destroy();
      }
      boolean clean = awaitExit(p, timeoutMillis);
      if (!clean) {
        p.destroyForcibly();
        awaitExit(p, 10_000);
      }
      state = State.DOWN;
      return clean;
    } finally {
      settled.incrementAndGet();
    }
  }

  public boolean alive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  public long pid() {
    Process p = process;
    return p == null ? -1 : p.pid();
  }

  private void signal(String name) {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).redirectErrorStream(true).start();
      kill.getInputStream().readAllBytes();
      kill.waitFor(5, TimeUnit.SECONDS);
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + name + " to N" + id + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static boolean awaitExit(Process p, long millis) {
    try {
      return p.waitFor(millis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return !p.isAlive();
    }
  }
}
