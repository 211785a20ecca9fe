package io.nrtcluster.cli;

import io.nrtcluster.common.NodeClosedException;
import io.nrtcluster.common.NotPrimaryException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.time.Duration;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * Writes the source to whichever node is primary, the way an application would: every entry is an
 * {@code updateDocument} on its id, every refresh records the source position; when the primary
 * refuses ({@link NotPrimaryException}) or is gone, or a refresh could not be published ({@link
 * NotPublishedException}), it waits for a primary and replays the source from that primary's {@link
 * ClusterNode#replayPosition()}.
 */
final class Ingest {
  static final Duration ELECTION_TIMEOUT = Duration.ofSeconds(30);

  /**
   * A new primary taken over.
   *
   * @param node the new primary
   * @param gen its generation
   * @param version the version it searched when it took over
   * @param position its replay position then
   * @param replayFrom first source entry replayed
   * @param replayed entries replayed
   * @param electedNanos from {@code since} until it accepted writes
   */
  record Takeover(int node, long gen, long version, String position, int replayFrom, int replayed, long electedNanos) {}

  private final DemoCluster cluster;
  private final SourceLog source;
  private volatile int primary;
  private long replayed;

  Ingest(DemoCluster cluster, SourceLog source, int primary) {
    this.cluster = cluster;
    this.source = source;
    this.primary = primary;
  }

  int primary() {
    return primary;
  }

  /** Entries replayed over all takeovers. */
  long replayed() {
    return replayed;
  }

  /** Appends {@code n} entries to the source and writes each to the primary. */
  void append(int n) throws IOException, InterruptedException {
    for (int k = 0; k < n; k++) {
      int entry = source.append();
      ClusterNode p = cluster.node(primary);
      try {
        if (p == null) {
          throw new NodeClosedException(DemoCluster.name(primary) + " is down");
        }
        p.updateDocument(source.idTerm(entry), source.document(entry));
      } catch (NotPrimaryException | NodeClosedException | AlreadyClosedException e) {
        follow(System.nanoTime()); // Replays this entry too.
      }
    }
  }

  /** Refreshes on the primary, with the source position; returns the new version. */
  long refresh() throws IOException, InterruptedException {
    while (true) {
      ClusterNode p = cluster.node(primary);
      try {
        if (p == null) {
          throw new NodeClosedException(DemoCluster.name(primary) + " is down");
        }
        return p.refresh(source.position());
      } catch (NotPrimaryException | NotPublishedException | NodeClosedException | AlreadyClosedException e) {
        // NotPublished: ZooKeeper did not record the version; whoever leads after the wait replays and refreshes.
        follow(System.nanoTime());
      }
    }
  }

  /**
   * Waits until a node accepts writes, then applies again every source entry after its replay
   * position (everything since {@code sinceNanos} counts as the election).
   */
  Takeover follow(long sinceNanos) throws IOException, InterruptedException {
    int p = cluster.awaitPrimary(ELECTION_TIMEOUT);
    long elected = System.nanoTime() - sinceNanos;
    ClusterNode node = cluster.node(p);
    String position = node.replayPosition();
    long version = node.searchingVersion();
    int from = source.replayFrom(position);
    try {
      for (int e = from; e < source.size(); e++) {
        node.updateDocument(source.idTerm(e), source.document(e));
      }
    } catch (NotPrimaryException | NodeClosedException | AlreadyClosedException e) {
      return follow(System.nanoTime()); // Lost it again meanwhile: start over on the next one.
    }
    primary = p;
    replayed += source.size() - from;
    return new Takeover(p, node.primaryGen(), version, position, from, source.size() - from, elected);
  }
}
