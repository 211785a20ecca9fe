package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One network fault as decided when it fires: the directed cuts between hosts (nodes {@code N<i>},
 * ZooKeeper servers {@code zk<j>}), or one host's slowed link. Pure: the same hosts, primary and
 * random draw give the same fault, so a seed reproduces it.
 *
 * @param kind the fault kind (a partition kind or {@link FaultKind#SLOW_LINK})
 * @param cuts packets from {@code from} to {@code to} are dropped; both directions appear for a two-way cut
 * @param slowHost the host whose link is slowed, or null
 * @param rateBitsPerSecond the slowed link's rate, or 0
 * @param silent cut packets vanish (connections stall until timeouts) rather than fail at once
 * @param description what it does, for the timeline
 */
record LinkFault(FaultKind kind, Set<Cut> cuts, String slowHost, long rateBitsPerSecond, boolean silent,
    String description) {
  /** Packets from {@code from} to {@code to} are dropped. */
  record Cut(String from, String to) {}

  LinkFault {
    cuts = Set.copyOf(cuts);
  }

  /**
   * Decides the fault of {@code kind} among {@code nodes} (the live ones, primary included) and the
   * ZooKeeper servers {@code zooKeepers}.
   */
  static LinkFault plan(FaultKind kind, String primary, List<String> nodes, List<String> zooKeepers,
      SplittableRandom random) {
    List<String> others = nodes.stream().filter(n -> !n.equals(primary)).toList();
    Set<Cut> cuts = new LinkedHashSet<>();
    // Mostly silent, as a lost network is; sometimes loud, as a firewall's reject is.
    boolean silent = random.nextInt(4) != 0;
    LinkFault planned = switch (kind) {
      case PARTITION_PRIMARY_ZOOKEEPER -> {
        cutBoth(cuts, List.of(primary), zooKeepers);
        yield new LinkFault(kind, cuts, null, 0, silent, primary + " cut off from ZooKeeper " + zooKeepers);
      }
      case PARTITION_PRIMARY_REPLICAS -> {
        cutBoth(cuts, List.of(primary), others);
        yield new LinkFault(kind, cuts, null, 0, silent, primary + " cut off from " + others);
      }
      case PARTITION_HALVES -> {
        List<String> all = new ArrayList<>(nodes);
        all.addAll(zooKeepers);
        shuffle(all, random);
        int half = all.size() / 2;
        List<String> a = sorted(all.subList(0, half));
        List<String> b = sorted(all.subList(half, all.size()));
        cutBoth(cuts, a, b);
        yield new LinkFault(kind, cuts, null, 0, silent, "halves " + a + " | " + b);
      }
      case PARTITION_BRIDGE -> {
        List<String> candidates = new ArrayList<>(nodes);
        String bridge = candidates.remove(random.nextInt(candidates.size()));
        List<String> rest = new ArrayList<>(candidates);
        rest.addAll(zooKeepers);
        shuffle(rest, random);
        int half = rest.size() / 2;
        List<String> a = sorted(rest.subList(0, half));
        List<String> b = sorted(rest.subList(half, rest.size()));
        cutBoth(cuts, a, b);
        yield new LinkFault(kind, cuts, null, 0, silent, a + " | " + b + ", bridged by " + bridge);
      }
      case PARTITION_ONE_WAY -> {
        List<String> peers = new ArrayList<>(others);
        peers.addAll(zooKeepers);
        boolean outbound = random.nextBoolean();
        for (String p : peers) {
          cuts.add(outbound ? new Cut(primary, p) : new Cut(p, primary));
        }
        yield new LinkFault(kind, cuts, null, 0, silent, outbound
            ? "packets from " + primary + " to " + peers + " dropped (it still receives)"
            : "packets to " + primary + " from " + peers + " dropped (it still sends)");
      }
      case SLOW_LINK -> {
        boolean ofPrimary = random.nextBoolean() || others.isEmpty();
        String host = ofPrimary ? primary : others.get(random.nextInt(others.size()));
        long rate = (256L << 10) * (1 + random.nextInt(8));
        yield new LinkFault(kind, cuts, host, rate, silent, host + (ofPrimary ? " (primary)" : "") + " link at "
            + (rate >> 10) + " kbit/s both ways");
      }
      default -> throw new IllegalArgumentException(kind + " is not a network fault");
    };
    return planned;
  }

  private static void cutBoth(Set<Cut> cuts, List<String> a, List<String> b) {
    for (String x : a) {
      for (String y : b) {
        cuts.add(new Cut(x, y));
        cuts.add(new Cut(y, x));
      }
    }
  }

  private static void shuffle(List<String> list, SplittableRandom random) {
    for (int i = list.size() - 1; i > 0; i--) {
      Collections.swap(list, i, random.nextInt(i + 1));
    }
  }

  private static List<String> sorted(List<String> list) {
    return list.stream().sorted().toList();
  }

  /** The description, with how cut packets are dropped. */
  String detail() {
    return cuts.isEmpty() ? description : description + (silent ? " (silent drops)" : " (rejected at once)");
  }

  /** Whether {@code a} can send to {@code b} while this fault holds. */
  boolean reaches(String a, String b) {
    return !cuts.contains(new Cut(a, b));
  }
}
