package io.nrtcluster.stress.bench;

import io.nrtcluster.election.Role;
import io.nrtcluster.objectstore.S3TestServer;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.NodeProcess;
import io.nrtcluster.stress.agent.StoreOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Figure 10, replica bootstrap from an object store: a primary node process builds an index of {@link
 * BootstrapConfig#indexMb()} and backs up its commits to an S3-compatible store (S3Proxy in the
 * harness's JVM, in memory: {@link S3TestServer}). While it indexes at a paced rate, two new replica
 * processes with empty directories bootstrap it, first without the store (everything from the primary:
 * the baseline), then with it (the newest backup from the store, the difference from the primary).
 * Each bootstrap starts from a commit that is backed up, and is measured from the start of the replica
 * JVMs to both searching the version the primary searched then: the primary's bytes sent ({@link
 * TcpSentBytes}), its CPU seconds, its indexing rate, and the time.
 */
final class BootstrapFigure {
  /** The target: from the store, the primary sends at most this share of the index's bytes. */
  static final double TARGET_SENT_RATIO = 0.05;
  private static final String CLUSTER = "bootstrap";
  private static final long START_MS = TimeUnit.MINUTES.toMillis(30);
  private static final Duration DEADLINE = Duration.ofMinutes(30);
  /** The paced load runs this long before the replicas start, so they meet a primary already indexing. */
  private static final long LOAD_LEAD_NANOS = TimeUnit.SECONDS.toNanos(2);

  private BootstrapFigure() {}

  static BenchReport.Bootstrap run(BenchConfig config, BenchNodes nodes, Consumer<String> out, BenchTable table)
      throws Exception {
    BootstrapConfig bc = config.bootstrap();
    Path dir = config.out().resolve("bootstrap");
    try (S3TestServer store = S3TestServer.start()) {
      Set<Integer> notReplicas = Set.of(port(nodes.zooKeeper()), store.endpoint().getPort());
      // A large RAM buffer (up to a quarter of the heap) so the build flushes large segments and merges
      // little, but at most half the index, so a small index stops near its size.
      long ramBufferMb = Math.max(4, Math.min(bc.heapMb() / 4, bc.indexMb() / 2));
      NodeProcess primary = node(config, nodes, store, dir, 1, List.of("--store-backups", "--ram-buffer-mb",
          Long.toString(ramBufferMb)));
      List<NodeProcess> started = new ArrayList<>(List.of(primary));
      try {
        BenchNodes.start(primary);
        BenchNodes.awaitRole(primary, Role.PRIMARY);
        BenchClient p = BenchNodes.client(primary);
        out.accept("bench: bootstrap: building a " + bc.indexMb() + " MiB index of Europarl documents on the primary");
        BenchApi.BuildReply built = p.bootstrapBuild(bc.indexMb() << 20, bc.mergeToSegments());
        long backedUp = System.nanoTime();
        awaitBackup(p, built.version());
        double backupSec = round((System.nanoTime() - backedUp) / 1e9);
        out.accept(String.format(Locale.ROOT, "bench: bootstrap: %d docs, %.1f MiB in %.1f s; backed up in %.1f s",
            built.docs(), built.indexBytes() / 1048576.0, built.nanos() / 1e9, backupSec));

        BenchReport.BootstrapRun fromPrimary = bootstrap(config, nodes, store, dir, primary, notReplicas, false, 2, started, out);
        BenchReport.BootstrapRun fromStore = bootstrap(config, nodes, store, dir, primary, notReplicas, true, 4, started, out);
        BenchReport.Bootstrap fig = new BenchReport.Bootstrap(built.indexBytes(), built.docs(), round(built.nanos() / 1e9),
            backupSec, bc.docsPerSec(), bc.refreshMs(), fromPrimary, fromStore, fromStore.primaryBytesSentRatio(),
            fromPrimary.primaryBytesSentRatio(), TARGET_SENT_RATIO, fromStore.primaryBytesSentRatio() <= TARGET_SENT_RATIO,
            "each bootstrap: two replica JVMs with empty directories started at once while the primary indexes Europarl "
            + "documents at docsPerSec, refreshing every refreshMs, from a commit that is backed up; timed from their start "
            + "to both searching the version the primary searched then; primary bytes sent: bytes the primary process's TCP "
            + "sockets had acknowledged by their peers in that window (ss -tinp), except to ZooKeeper and the store; CPU: "
            + "the primary process's CPU time in that window; the store: S3Proxy in the harness's JVM, in memory, on loopback");
        rows(fig, table);
        return fig;
      } finally {
        for (NodeProcess n : started) {
          n.stopGracefully(30_000);
        }
      }
    }
  }

  /** Two new replicas (ids {@code firstId} and the next) bootstrap while the primary indexes. */
  private static BenchReport.BootstrapRun bootstrap(BenchConfig config, BenchNodes nodes, S3TestServer store, Path dir,
      NodeProcess primary, Set<Integer> notReplicas, boolean fromStore, int firstId, List<NodeProcess> started,
      Consumer<String> out) throws Exception {
    BootstrapConfig bc = config.bootstrap();
    String source = fromStore ? "store" : "primary";
    BenchClient p = BenchNodes.client(primary);
    awaitBackup(p, p.bootstrapCommit());
    List<NodeProcess> replicas = new ArrayList<>();
    for (int id = firstId; id < firstId + 2; id++) {
      replicas.add(node(config, nodes, store, dir, id, fromStore ? List.of("--store-bootstrap") : List.of()));
    }
    started.addAll(replicas);
    p.bootstrapLoadStart(bc.docsPerSec(), bc.refreshMs());
    try {
      park(LOAD_LEAD_NANOS);
      long target = p.status().version();
      long indexBytes = p.bootstrapStore().indexBytes();
      out.accept("bench: bootstrap from the " + source + ": N" + firstId + " and N" + (firstId + 1) + " start; "
          + String.format(Locale.ROOT, "%.1f MiB", indexBytes / 1048576.0) + " on the primary at version " + target);
      ProcessHandle primaryProcess = ProcessHandle.of(primary.pid()).orElseThrow(() -> new IOException("the primary is gone"));
      try (TcpSentBytes sent = new TcpSentBytes(primary.pid(), notReplicas)) {
        long docs0 = p.bootstrapLoadDocs().docs();
        long cpu0 = cpuNanos(primaryProcess);
        long t0 = System.nanoTime();
        List<CompletableFuture<Long>> searching = new ArrayList<>();
        for (NodeProcess r : replicas) {
          searching.add(CompletableFuture.supplyAsync(() -> startAndAwait(r, target)));
        }
        long[] at = new long[replicas.size()];
        try {
          for (int i = 0; i < at.length; i++) {
            at[i] = searching.get(i).join();
          }
        } catch (CompletionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        long t1 = Math.max(at[0], at[1]);
        long docs1 = p.bootstrapLoadDocs().docs();
        long cpu1 = cpuNanos(primaryProcess);
        long bytes = sent.sent();
        double seconds = (t1 - t0) / 1e9;
        List<BenchReport.ReplicaBootstrap> each = new ArrayList<>();
        for (int i = 0; i < at.length; i++) {
          NodeProcess r = replicas.get(i);
          BenchApi.StoreReply s = BenchNodes.client(r).bootstrapStore();
          each.add(new BenchReport.ReplicaBootstrap(r.id(), round((at[i] - t0) / 1e6), s.bootstrapOutcome(),
              s.bytesFromPrimary(), s.bytesDownloaded()));
        }
        BenchReport.BootstrapRun run = new BenchReport.BootstrapRun(source, indexBytes, target, round((t1 - t0) / 1e6), bytes,
            ratio(bytes, indexBytes), round((cpu1 - cpu0) / 1e9), docs1 - docs0, round((docs1 - docs0) / seconds),
            List.copyOf(each));
        out.accept(String.format(Locale.ROOT, "bench: bootstrap from the %s: both searching after %.1f s; the primary sent "
            + "%.1f MiB (%.2f%% of the index), spent %.1f CPU s, indexed %.0f docs/s", source, seconds, bytes / 1048576.0,
            run.primaryBytesSentRatio() * 100, run.primaryCpuSec(), run.docsPerSec()));
        return run;
      }
    } finally {
      p.bootstrapLoadStop();
      for (NodeProcess r : replicas) {
        r.stopGracefully(30_000);
      }
    }
  }

  /** Starts {@code r} and waits until it searches {@code version} or newer; returns when (nanoTime). */
  private static long startAndAwait(NodeProcess r, long version) {
    try {
      r.start(START_MS);
      BenchClient c = BenchNodes.client(r);
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      while (true) {
        long v;
        try {
          v = c.status().version();
        } catch (AgentException e) {
          v = -1; // a replica busy restoring may answer late: asked again until the deadline
        }
        long now = System.nanoTime();
        if (v >= version) {
          return now;
        }
        if (now > deadline) {
          throw new IOException("N" + r.id() + " did not search version " + version + " within " + DEADLINE.toMinutes()
              + " minutes (it searches " + v + ")");
        }
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
      }
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }

  /** Waits (bounded) until the primary's backups reached {@code version}. */
  private static void awaitBackup(BenchClient p, long version) throws IOException {
    long deadline = System.nanoTime() + DEADLINE.toNanos();
    while (p.bootstrapStore().lastBackedUpVersion() < version) {
      if (System.nanoTime() > deadline) {
        throw new IOException("version " + version + " was not backed up within " + DEADLINE.toMinutes() + " minutes");
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
    }
  }

  private static NodeProcess node(BenchConfig config, BenchNodes nodes, S3TestServer store, Path dir, int id,
      List<String> extra) throws IOException {
    Path d = dir.resolve("node-" + id);
    List<String> args = new ArrayList<>(List.of("--zk", nodes.zooKeeper(), "--cluster", CLUSTER,
        "--session-timeout-ms", Integer.toString(config.sessionTimeoutMs()), "--merge-wait-ms", "0"));
    if (!extra.isEmpty()) {
      args.addAll(StoreOptions.args(store, d));
      args.addAll(extra);
    }
    return new NodeProcess(id, d, BenchNodes.command(config, config.bootstrap().heapMb(), d, id, args));
  }

  private static long cpuNanos(ProcessHandle p) throws IOException {
    return p.info().totalCpuDuration().orElseThrow(() -> new IOException("no CPU time for pid " + p.pid())).toNanos();
  }

  private static int port(String hostPort) {
    return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
  }

  private static void rows(BenchReport.Bootstrap f, BenchTable table) {
    BenchReport.BootstrapRun s = f.fromStore();
    BenchReport.BootstrapRun p = f.fromPrimary();
    table.text("bootstrap: primary bytes sent / index bytes, from the store (baseline: from the primary)",
        String.format(Locale.ROOT, "%.2f%%", s.primaryBytesSentRatio() * 100),
        String.format(Locale.ROOT, "%.1f%%", p.primaryBytesSentRatio() * 100),
        String.format(Locale.ROOT, "%.3f", Dist.ratio(s.primaryBytesSent(), p.primaryBytesSent())),
        "<= 5%" + (f.targetMet() ? " met" : " missed"));
    table.row("bootstrap: primary MiB sent, from the store / from the primary", s.primaryBytesSent() / 1048576.0,
        p.primaryBytesSent() / 1048576.0, "MiB", "");
    table.row("bootstrap: primary CPU, from the store / from the primary", s.primaryCpuSec(), p.primaryCpuSec(), "s", "");
    table.row("bootstrap: start to both replicas searching, from the store / from the primary", s.toSearchingMs(),
        p.toSearchingMs(), "ms", "");
    table.row("bootstrap: primary's indexing rate, from the store / from the primary (asked " + f.docsPerSec() + ")",
        s.docsPerSec(), p.docsPerSec(), "docs/s", "");
  }

  private static double ratio(long part, long whole) {
    return whole <= 0 ? -1 : Math.round(part / (double) whole * 10_000) / 10_000.0;
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }

  private static void park(long nanos) {
    long end = System.nanoTime() + nanos;
    for (long left = nanos; left > 0; left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }
}
