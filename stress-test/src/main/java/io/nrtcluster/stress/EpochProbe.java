package io.nrtcluster.stress;

import io.nrtcluster.election.Role;
import io.nrtcluster.stress.agent.AgentApi;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Asks every node that last said it leads for a refresh, a few times a second, one request in
 * flight per node, and logs each acknowledgement in the {@link AckLog}. The write path only talks
 * to the primary ZooKeeper names; this probe also reaches a primary that lost ZooKeeper but does not
 * know it yet (the harness reaches every host, whatever the partition), which is exactly the node
 * that must not acknowledge.
 */
final class EpochProbe implements AutoCloseable {
  private static final long PERIOD_MS = 300;
  private final ChaosCluster cluster;
  private final Observer observer;
  private final AckLog acks;
  private final Map<Integer, Boolean> inFlight = new ConcurrentHashMap<>();
  private final Thread thread;
  private volatile boolean running = true;

  EpochProbe(ChaosCluster cluster, Observer observer, AckLog acks) {
    this.cluster = cluster;
    this.observer = observer;
    this.acks = acks;
    this.thread = Thread.ofPlatform().name("chaos-epoch-probe").daemon().unstarted(this::run);
  }

  void start() {
    thread.start();
  }

  private void run() {
    while (running) {
      Map<Integer, AgentApi.Status> last = observer.lastStatus();
      for (NodeProcess n : cluster.nodes()) {
        AgentApi.Status s = last.get(n.id());
        if (s != null && s.role() == Role.PRIMARY && n.state() == NodeProcess.State.UP
            && inFlight.putIfAbsent(n.id(), Boolean.TRUE) == null) {
          Thread.ofVirtual().name("chaos-probe-N" + n.id()).start(() -> probe(n));
        }
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
    }
  }

  private void probe(NodeProcess n) {
    try {
      long sent = System.currentTimeMillis();
      AgentApi.RefreshReply r = n.client().refresh();
      acks.add(new AckLog.Ack(n.id(), r.gen(), r.version(), sent, System.currentTimeMillis(), true, r.numDocs(),
          r.digest()));
    } catch (AgentException | RuntimeException refusedOrUnreachable) {
      // Not an acknowledgement: nothing to judge.
    } finally {
      inFlight.remove(n.id());
    }
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    thread.join(TimeUnit.SECONDS.toMillis(5));
  }
}
