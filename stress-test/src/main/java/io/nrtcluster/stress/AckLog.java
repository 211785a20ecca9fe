package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.List;

/**
 * Every refresh a node acknowledged, whoever asked (the write path, or the {@link EpochProbe} that
 * asks every node claiming to lead): the version and generation it answered, and when the request
 * was sent and the answer received (wall-clock millis, the clock ZooKeeper's transactions carry).
 * The raw material of the {@link SafetyCheck}.
 */
final class AckLog {
  /**
   * One acknowledged refresh.
   *
   * @param gen the generation the node led when it refreshed; -1 when it changed during the refresh
   *     (then the answer cannot be attributed, and is not judged)
   */
  record Ack(int nodeId, long gen, long version, long sentMillis, long receivedMillis, boolean probe) {}

  private final List<Ack> acks = new ArrayList<>();

  synchronized void add(Ack a) {
    acks.add(a);
  }

  synchronized List<Ack> acks() {
    return List.copyOf(acks);
  }
}
