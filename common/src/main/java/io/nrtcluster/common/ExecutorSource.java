package io.nrtcluster.common;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Where the parts of one index get the executors their background work runs on: threads of their
 * own ({@link #ownThreads()}: a {@code Primary} or {@code Replica} used alone, one thread per part
 * as it always was), or the shared pools of a host (the node's {@code HostExecutors}: a constant
 * number of threads however many indexes the host serves).
 *
 * <p>Every executor handed out belongs to the part that asked: it shuts it down when it closes,
 * which never touches a shared pool. Each kind of work ({@link Pool}) says what its tasks may wait
 * for; a part puts a task on the kind whose rule it keeps, so a wait of one kind can never hold up
 * a task of a kind it waits for (the waits between kinds go one way only: operator requests wait
 * for election steps, election steps for role switches, role switches for catch-up, scrub and copy
 * tasks to end; never back).
 */
@Experimental
public interface ExecutorSource {
  /** The kinds of work, each on its own pool in a host, with what its tasks may wait for. */
  enum Pool {
    /**
     * Short periodic work (progress reports, failure-detector looks, heartbeats, progress of merge
     * pre-copies, reconnect attempts that go on asynchronously): never waits for the network,
     * ZooKeeper, the disk or another task.
     */
    TICK,
    /** Election steps: wait for ZooKeeper and for the index's role switches ({@link #EVENTS}). */
    ELECTION,
    /** An index's role switches: open and close primaries and replicas (disk, ZooKeeper, a bounded connect). */
    EVENTS,
    /** Operator requests: a hand-off waits for its target to catch up, for the election and for role switches. */
    OPERATOR,
    /**
     * Replicas' catch-up steps and scrubs, primaries' checks of reported files and copy-state leases:
     * wait for a primary's reply (bounded by the request timeout) and for the disk.
     */
    WORK,
    /** Copy jobs: read file data from the network and write it to disk, in slices. */
    COPY
  }

  /** A new serial executor (tasks one at a time, in order) for {@code name}'s work of kind {@code pool}. */
  SerialExecutor serial(Pool pool, String name);

  /** A new executor for {@code name}'s tasks of kind {@code pool} that may run at the same time. */
  ExecutorService parallel(Pool pool, String name);

  /** Threads of its own for every part, started when first needed: the standalone behaviour. */
  static ExecutorSource ownThreads() {
    return OwnThreads.INSTANCE;
  }

  /** See {@link #ownThreads()}. */
  final class OwnThreads implements ExecutorSource {
    static final OwnThreads INSTANCE = new OwnThreads();

    private OwnThreads() {}

    @Override
    public SerialExecutor serial(Pool pool, String name) {
      return SerialExecutor.ownThread(name);
    }

    @Override
    public ExecutorService parallel(Pool pool, String name) {
      return Executors.newCachedThreadPool(new NamedThreadFactory(name));
    }

    @Override
    public String toString() {
      return "own threads";
    }
  }
}
