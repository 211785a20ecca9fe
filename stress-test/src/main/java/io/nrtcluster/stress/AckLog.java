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
  record Ack(int nodeId, long gen, long version, long sentMillis, long receivedMillis, boolean probe, int numDocs,
      long digest) {
    /** Whether the primary said what it published at this version (its live documents' count and digest). */
    boolean hasContents() {
      return numDocs >= 0;
    }
  }

  /**
   * One acknowledged commit: node {@code nodeId} committed {@code version}; {@code primary}: it
   * committed as its index's primary (before and after), whose commit may make a version no refresh
   * published. A replica's commit makes none: it commits the point it copied.
   */
  record Commit(int nodeId, long version, long receivedMillis, boolean primary) {}

  private final List<Ack> acks = new ArrayList<>();
  private final List<Commit> commits = new ArrayList<>();

  synchronized void add(Ack a) {
    acks.add(a);
  }

  synchronized List<Ack> acks() {
    return List.copyOf(acks);
  }

  synchronized void commit(Commit c) {
    commits.add(c);
  }

  synchronized List<Commit> commits() {
    return List.copyOf(commits);
  }
}
