package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The seeded fault schedule: what happens when, decided before the run starts, so the same seed
 * gives the same schedule. Every enabled kind comes at least once (in a seeded order), then more at
 * random, spread over the run with jitter. Targets are picked when a fault fires (the primary then,
 * or replica number {@code pick} modulo the replicas then), so the plan does not depend on timing.
 */
record FaultPlan(List<Planned> faults) {
  /** Minimum spacing that leaves the cluster time to recover between faults. */
  static final long MIN_GAP_MS = 6_000;
  static final long WARMUP_MS = 4_000;

  /**
   * One scheduled fault.
   *
   * @param atMillis run-relative time it fires (or later, if the cluster is still recovering)
   * @param kind what
   * @param pick picks the target among candidates
   * @param holdMillis how long the fault lasts (pause, wire faults, ZooKeeper server down, restart delay,
   *     partition or slow link until healed, object store down)
   * @param variant kind-specific choice: JVM crash by SIGSEGV (true) or halt; pause of the primary (true)
   *     or a replica; a kill aimed at a copy in progress (true) or at any moment
   */
  record Planned(long atMillis, FaultKind kind, int pick, long holdMillis, boolean variant) {}

  static FaultPlan generate(ChaosConfig config) {
    SplittableRandom random = new SplittableRandom(config.seed());
    List<FaultKind> kinds = new ArrayList<>(config.faults().stream().sorted().toList());
    long span = config.duration().toMillis() - WARMUP_MS - MIN_GAP_MS;
    if (kinds.isEmpty() || span <= 0) {
      return new FaultPlan(List.of());
    }
    int count = (int) Math.max(kinds.size(), span / (MIN_GAP_MS * 3 / 2));
    // Each enabled kind once, in seeded order; then uniformly random kinds.
    for (int i = kinds.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      FaultKind tmp = kinds.get(i);
      kinds.set(i, kinds.get(j));
      kinds.set(j, tmp);
    }
    List<FaultKind> all = new ArrayList<>(config.faults().stream().sorted().toList());
    while (kinds.size() < count) {
      kinds.add(all.get(random.nextInt(all.size())));
    }
    long slot = span / count;
    long session = config.sessionTimeout().toMillis();
    List<Planned> plan = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      FaultKind kind = kinds.get(i);
      long at = WARMUP_MS + i * slot + (long) (random.nextDouble() * slot * 0.5);
      long hold = switch (kind) {
        // From well under to well over the session timeout: the zombie-primary case needs the latter.
        case PAUSE -> (long) (session * (0.3 + random.nextDouble() * 2.2));
        case WIRE -> 2_000 + random.nextInt(4_000);
        case ZK_RESTART -> 1_000 + random.nextInt(4_000);
        // Past the session timeout, so ZooKeeper fences it and another node takes over meanwhile.
        case PRIMARY_PAUSE -> (long) (session * (1.5 + random.nextDouble() * 1.5));
        case PARTITION_PRIMARY_ZOOKEEPER -> (long) (session * (1.5 + random.nextDouble()));
        case PARTITION_PRIMARY_REPLICAS -> (long) (session * (1 + random.nextDouble() * 1.5));
        case PARTITION_HALVES, PARTITION_BRIDGE, PARTITION_ONE_WAY -> (long) (session * (0.5 + random.nextDouble() * 2));
        case SLOW_LINK -> 3_000 + random.nextInt(5_000);
        case DISK_FULL -> 3_000 + random.nextInt(7_000);
        case COPY_DROP -> 3_000 + random.nextInt(5_000);
        // Half the time a short outage, half the time several commits' worth, so backups fail and resume.
        case STORE_RESTART -> random.nextBoolean() ? 1_000 + random.nextInt(3_000)
            : Math.min(30_000, config.commitInterval().toMillis() * (3 + random.nextInt(3)));
        default -> 500 + random.nextInt(2_500);
      };
      plan.add(new Planned(at, kind, random.nextInt(1 << 20), hold, random.nextBoolean()));
    }
    return new FaultPlan(List.copyOf(plan));
  }
}
