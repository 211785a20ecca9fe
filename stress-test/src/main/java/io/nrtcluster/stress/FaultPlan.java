package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The seeded fault schedule: what happens when, decided before the run starts, so the same seed
 * gives the same schedule. Every enabled kind comes at least once (in a seeded order), then the rest
 * are dealt from shuffled decks holding each kind {@link #weight} times, so the faults that move or
 * fence the primary and the wire's bit flips come most often, in proportions that do not depend on
 * luck. {@link ChaosConfig#faultRate()} faults an hour, spread over the run with jitter. Targets are
 * picked when a fault fires (the primary then, or replica number {@code pick} modulo the replicas
 * then), so the plan does not depend on timing.
 */
record FaultPlan(List<Planned> faults) {
  /** Quiet time left at the end of the run, for the cluster to recover before the final check. */
  static final long MIN_GAP_MS = 6_000;
  static final long WARMUP_MS = 4_000;
  /**
   * Replication frames a second, summed over the nodes, that a wire fault's flips can fall on at the
   * default workload (300 writes a second, a refresh every 500 ms), as measured on three nodes: seed
   * 20261121 at 720 faults an hour injected 389 flips from three wire faults holding 2.64 s of flip
   * probability (sum of probability times seconds). Flips injected scale with the traffic, so {@link
   * #expectedWireFlips} is an expectation, not a count.
   */
  static final double WIRE_FRAMES_PER_SECOND = 150;

  /**
   * One scheduled fault.
   *
   * @param atMillis run-relative time it fires (or later, if the cluster is still recovering)
   * @param kind what
   * @param pick picks the target among candidates
   * @param holdMillis how long the fault lasts (pause, wire faults, ZooKeeper server down, restart delay,
   *     partition or slow link until healed, object store down)
   * @param variant kind-specific choice: JVM crash by SIGSEGV (true) or halt; pause of the primary (true)
   *     or a replica; a kill aimed at a copy in progress (true) or at any moment; a copy parent's kill
   *     on a slowed wire (true), so a child's copy from it lasts long enough to be caught
   * @param flipProbability a wire fault's bit-flip probability per frame (0 for every other kind)
   */
  record Planned(long atMillis, FaultKind kind, int pick, long holdMillis, boolean variant, double flipProbability) {}

  /** How often {@code kind} comes in each deal after the first round, relative to the others. */
  static int weight(FaultKind kind) {
    return switch (kind) {
      case PRIMARY_KILL -> 5;
      case PAUSE, WIRE -> 3;
      default -> 1;
    };
  }

  /** Bit flips the plan's wire faults are expected to inject at {@link #WIRE_FRAMES_PER_SECOND}. */
  long expectedWireFlips() {
    double flips = 0;
    for (Planned p : faults) {
      flips += p.flipProbability() * p.holdMillis() / 1000.0 * WIRE_FRAMES_PER_SECOND;
    }
    return Math.round(flips);
  }

  static FaultPlan generate(ChaosConfig config) {
    SplittableRandom random = new SplittableRandom(config.seed());
    List<FaultKind> kinds = new ArrayList<>(config.faults().stream().sorted().toList());
    long span = config.duration().toMillis() - WARMUP_MS - MIN_GAP_MS;
    if (kinds.isEmpty() || span <= 0) {
      return new FaultPlan(List.of());
    }
    int count = (int) Math.max(kinds.size(), span * config.faultRate() / 3_600_000);
    shuffle(kinds, random);
    List<FaultKind> deck = new ArrayList<>();
    for (FaultKind k : config.faults().stream().sorted().toList()) {
      for (int w = 0; w < weight(k); w++) {
        deck.add(k);
      }
    }
    while (kinds.size() < count) {
      shuffle(deck, random);
      kinds.addAll(deck.subList(0, Math.min(deck.size(), count - kinds.size())));
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
      double flip = kind == FaultKind.WIRE ? config.wireFlipProbability() * (0.1 + random.nextDouble() * 0.9) : 0;
      plan.add(new Planned(at, kind, random.nextInt(1 << 20), hold, random.nextBoolean(), flip));
    }
    return new FaultPlan(List.copyOf(plan));
  }

  private static void shuffle(List<FaultKind> kinds, SplittableRandom random) {
    for (int i = kinds.size() - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      FaultKind tmp = kinds.get(i);
      kinds.set(i, kinds.get(j));
      kinds.set(j, tmp);
    }
  }
}
