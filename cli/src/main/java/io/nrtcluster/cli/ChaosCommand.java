package io.nrtcluster.cli;

import io.nrtcluster.node.Durability;
import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.stress.ChaosConfig;
import io.nrtcluster.stress.ChaosReport;
import io.nrtcluster.stress.ChaosRun;
import io.nrtcluster.stress.FaultKind;
import io.nrtcluster.stress.NetworkMode;
import io.nrtcluster.stress.StorageMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt chaos}: the chaos stress test. Real node JVMs against a real three-server ZooKeeper
 * ensemble, crashed, paused and corrupted on a seeded schedule; exit code 0 only for a valid verdict.
 */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs the chaos stress test: starts a three-server ZooKeeper ensemble and --nodes node processes (each its own "
          + "JVM, the real embeddable node), writes, refreshes, commits and searches them while a seeded schedule "
          + "SIGKILLs the primary and replicas, crashes JVMs (SIGSEGV, Runtime.halt), pauses processes "
          + "(SIGSTOP/SIGCONT, sometimes past the session timeout), flips bits and throttles the wire, restarts a "
          + "ZooKeeper server, restarts the whole cluster and promotes replicas; pauses the primary past its session. "
          + "With 4 nodes or more it also SIGKILLs a replica that another replica copies from (copyParentKill: a "
          + "parent of the copy tree, while a child copies from it when that can be caught).",
      "With --network namespaces (root only) every node JVM and ZooKeeper server runs in its own network namespace "
          + "on a bridge the harness makes and always removes, and the schedule also cuts links: the primary from "
          + "ZooKeeper, the primary from its replicas, random halves, a bridge node seeing both sides, one-way cuts, "
          + "and slow links (tbf).",
      "With --storage tmpfs (root only) each node's index lives on a size-limited tmpfs the harness mounts, "
          + "fills from outside (a real `No space left on device`) and frees again (diskFull), and unmounts at the end "
          + "after keeping a copy of each index beside the mount point.",
      "With --object-store the harness runs an S3-compatible store (S3Proxy, in its own JVM) and every node opens "
          + "its index through it: bootstrap from the newest backup, backups while it leads, retention sweeps; the "
          + "schedule also wipes and rebuilds replicas (replicaRebuild: they must restore from the store and catch up "
          + "from the primary) and stops and restarts the store (storeRestart: indexing and replication go on, backups "
          + "resume), and the final check restores the newest backup, every byte verified, and compares it with the log.",
      "After each failover the harness replays its log from the new primary's replay position. At the end it "
          + "checks that no acknowledged document was lost, that nodes at the same version always agreed, that no "
          + "refresh was acknowledged with a version ZooKeeper never recorded for that primary, that no old primary "
          + "acknowledged after a newer one had, that no node's searches went back in time, that every node's status "
          + "answered in time, that the cluster converged after every healed partition, and that CheckIndex passes "
          + "with no unreferenced files; it writes DIR/chaos-report.json, .png and .html.",
      "With --durability replicated the harness writes as an application with no replayable source: it never "
          + "replays its log, refreshes ask for a replicated acknowledgement (every in-sync replica holds the version), "
          + "a write counts as acknowledged only once such a refresh on its primary covered it, and the verdict "
          + "requires no acknowledged write lost (unacknowledged ones may be there or not); refused refreshes are "
          + "counted by reason.",
      "Exit codes: 0 valid verdict, 1 invalid verdict (or the run failed), 2 usage."
    })
public final class ChaosCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--nodes", paramLabel = "N", defaultValue = "4", description = "Node processes, 3-9 (default: ${DEFAULT-VALUE}).")
  int nodes;

  @Option(names = "--duration", paramLabel = "TIME", defaultValue = "300s", converter = DurationConverter.class,
      description = "How long the workload runs and faults are injected (default: ${DEFAULT-VALUE}); the final check follows.")
  Duration duration;

  @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42",
      description = "Seeds the fault schedule, the documents and the wire faults (default: ${DEFAULT-VALUE}).")
  long seed;

  @Option(names = "--report", paramLabel = "DIR", required = true,
      description = "Directory for the reports, node directories and logs (created; must be empty or absent).")
  Path report;

  @Option(names = "--faults", paramLabel = "KIND", split = ",",
      description = "Fault kinds to inject (default: all the modes and --nodes allow): primaryKill, replicaKill, "
          + "jvmCrash, pause, wire, zkServerRestart, fullClusterRestart, promotion, primaryPause, diskBitFlip, copyDrop; "
          + "with 4 nodes or more also copyParentKill; with namespaces also partitionPrimaryZooKeeper, "
          + "partitionPrimaryReplicas, partitionHalves, partitionBridge, partitionOneWay, slowLink; with tmpfs storage "
          + "also diskFull; with --object-store also replicaRebuild, storeRestart.")
  List<String> faults;

  @Option(names = "--network", paramLabel = "MODE", defaultValue = "loopback",
      description = "loopback (default) or namespaces: each host in its own network namespace, so links can be cut "
          + "and slowed. Needs root; without it the run is refused (exit 1), never run on loopback instead.")
  String network;

  @Option(names = "--storage", paramLabel = "MODE", defaultValue = "plain",
      description = "plain (default) or tmpfs: each node's index on its own size-limited tmpfs, so disks can be "
          + "filled (diskFull). Needs root.")
  StorageMode storage;

  @Option(names = "--disk-mb", paramLabel = "MB", defaultValue = "1024",
      description = "Size of each node's tmpfs with --storage tmpfs (default: ${DEFAULT-VALUE}).")
  int diskMb;

  @Option(names = "--object-store",
      description = "Run an S3-compatible store in the harness's JVM and open every node's index through it "
          + "(adds replicaRebuild and storeRestart).")
  boolean objectStore;

  @Option(names = "--store-backups", paramLabel = "WHICH", defaultValue = "commit",
      description = "With --object-store: back up every commit (default) or every published point.")
  String storeBackups;

  @Option(names = "--followers", paramLabel = "N", defaultValue = "0",
      description = "With --object-store: N store followers in the harness (0-8), following the index through the "
          + "store alone, their searches judged as replicas' and against ZooKeeper's publications (default: ${DEFAULT-VALUE}).")
  int followers;

  @Option(names = "--writes-per-second", paramLabel = "N", defaultValue = "300",
      description = "Bound on the write rate, all indexer threads together (default: ${DEFAULT-VALUE}).")
  int writesPerSecond;

  @Option(names = "--session-timeout", paramLabel = "TIME", defaultValue = "4s", converter = DurationConverter.class,
      description = "ZooKeeper session timeout of the nodes (default: ${DEFAULT-VALUE}).")
  Duration sessionTimeout;

  @Option(names = "--fault-rate", paramLabel = "N", defaultValue = "400",
      description = "Faults planned an hour, 10-1200 (default: ${DEFAULT-VALUE}, one every 9 s); primary kills, pauses "
          + "and wire faults come most often. Each fault still waits for the cluster to recover from the one before.")
  int faultRate;

  @Option(names = "--wire-flip-probability", paramLabel = "P", defaultValue = "0.2",
      description = "Highest per-frame bit-flip probability of a wire fault, at most 0.5; each draws one between a tenth "
          + "of it and it (default: ${DEFAULT-VALUE}).")
  double wireFlipProbability;

  @Option(names = "--durability", paramLabel = "LEVEL", defaultValue = "local",
      description = "local (default): the log is replayed after every failover and every accepted write must survive; "
          + "replicated: no replay, writes acknowledged by replicated refreshes, none of those may be lost.")
  String durability;

  @Option(names = "--node-heap-mb", paramLabel = "MB", defaultValue = "256",
      description = "Heap of each node JVM (default: ${DEFAULT-VALUE}).")
  int nodeHeapMb;

  @Override
  public Integer call() throws Exception {
    NetworkMode mode;
    try {
      mode = NetworkMode.parse(network.strip());
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--network: " + e.getMessage());
    }
    BackupMode backups = switch (storeBackups.strip().toLowerCase(Locale.ROOT)) {
      case "commit" -> BackupMode.EVERY_COMMIT;
      case "point" -> BackupMode.EVERY_POINT;
      default -> throw new ParameterException(spec.commandLine(), "--store-backups: commit or point, got '" + storeBackups + "'");
    };
    Durability level = switch (durability.strip().toLowerCase(Locale.ROOT)) {
      case "local" -> Durability.LOCAL;
      case "replicated" -> Durability.REPLICATED;
      default -> throw new ParameterException(spec.commandLine(), "--durability: local or replicated, got '" + durability + "'");
    };
    Set<FaultKind> kinds = FaultKind.available(mode, storage, objectStore, nodes);
    if (faults != null) {
      kinds = EnumSet.noneOf(FaultKind.class);
      for (String f : faults) {
        try {
          kinds.add(FaultKind.parse(f.strip()));
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), e.getMessage());
        }
      }
    }
    OutputDirectory.requireEmpty(spec, "--report", report);
    ChaosConfig config;
    try {
      config = ChaosConfig.builder().nodes(nodes).duration(duration).seed(seed).reportDir(report.toAbsolutePath())
          .faults(kinds).writesPerSecond(writesPerSecond).sessionTimeout(sessionTimeout).nodeHeapMb(nodeHeapMb).network(mode)
          .storage(storage).diskMb(diskMb).objectStore(objectStore).backupMode(backups).faultRate(faultRate)
          .wireFlipProbability(wireFlipProbability).durability(level).followers(followers).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), e.getMessage());
    }
    Console out = new Console(spec.commandLine().getOut());
    if (objectStore) {
      StoreLog.toFile(report.resolve("object-store.log"));
    }
    ChaosReport verdict = ChaosRun.run(config, out::println);
    out.println("reports: " + report.resolve("chaos-report.json") + ", " + report.resolve("chaos-report.html"));
    return verdict.valid() ? 0 : Main.EXIT_FAILED;
  }
}
