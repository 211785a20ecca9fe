package io.nrtcluster.primary;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.primary.PreCopyResult.Outcome;
import io.nrtcluster.primary.PreCopyResult.ReplicaOutcome;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.FileMeta;
import io.nrtcluster.transport.Message;
import io.nrtcluster.transport.ReplyListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.lucene.replicator.nrt.FileMetaData;

/**
 * Pre-copies a just-merged segment to the connected replicas before the primary installs it
 * (Lucene's merged-segment warmer hook), so a big merge never makes a refresh wait.
 *
 * <p>Waiting is bounded twice: a replica that sends no progress for {@code keepAlive} is skipped,
 * and the whole pre-copy ends at {@code timeout}. A skipped replica copies the merged files later,
 * with the NRT point that first references them. A replica that connects while a pre-copy runs is
 * included in it. Files of a pre-copy are servable exactly while it runs. The {@link PreCopyResult}
 * says, for each replica, whether it copied, failed, or was skipped and why.
 *
 * <p>With a copy tree ({@link CopyTreeConfig}) the pre-copy goes down it level by level: a replica
 * that copies from a parent is asked once its parent's pre-copy ended (copied, failed or skipped),
 * so that it finds the merged files on the parent; the primary sends each merged byte about once
 * per direct replica.
 */
final class MergePreCopier {
  private final NodeLog log;
  private final Supplier<Collection<Connection>> replicas;
  private volatile Supplier<CopyTree> tree = () -> new CopyTree(Map.of(), Map.of());
  private final LongSupplier primaryGen;
  private final Duration timeout;
  private final Duration keepAlive;
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<Long, PreCopy> running = new ConcurrentHashMap<>();
  private volatile boolean closed;
  private volatile PreCopyResult last;
  private volatile PrimaryObserver observer = PrimaryObserver.NONE;

  MergePreCopier(NodeLog log, Supplier<Collection<Connection>> replicas, LongSupplier primaryGen, Duration timeout, Duration keepAlive) {
    this.log = log;
    this.replicas = replicas;
    this.primaryGen = primaryGen;
    this.timeout = timeout;
    this.keepAlive = keepAlive;
  }

  /**
   * Runs on the merge thread. Returns when every included replica finished, was skipped, or the
   * deadline passed. Never throws: a failed pre-copy must not fail the merge.
   */
  void preCopy(String segment, Map<String, FileMetaData> files) {
    if (closed) {
      return;
    }
    long started = System.nanoTime();
    PreCopy pc = new PreCopy(nextId.getAndIncrement(), FileMetaEncoder.toWire(files));
    running.put(pc.id, pc);
    try {
      CopyTree plan = tree.get();
      Collection<Connection> connected = replicas.get();
      for (Connection c : connected) {
        pc.includeWhenReady(c, plan, connected);
      }
      pc.await();
      long bytes = files.values().stream().mapToLong(FileMetaData::length).sum();
      PreCopyResult result = new PreCopyResult(segment, bytes, files.size(), pc.targets.size(), pc.succeeded(),
          System.nanoTime() - started, pc.outcomes(), started);
      last = result;
      observer.preCopyFinished(result);
      log.info("pre-copied merged segment {} ({} files) to {} of {} replicas in {} ms",
          segment, files.size(), pc.succeeded(), pc.targets.size(), (System.nanoTime() - started) / 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      log.warn("pre-copy of {} interrupted", segment);
    } catch (RuntimeException e) {
      log.warn("pre-copy of {} failed; replicas will copy it with the next NRT point", segment, e);
    } finally {
      running.remove(pc.id);
      pc.abandonRemaining();
    }
  }

  /** Where the copy tree comes from: a replica is asked only once its parent's pre-copy ended. */
  void tree(Supplier<CopyTree> plan) {
    this.tree = plan;
  }

  /** A replica connected: it joins every pre-copy still running (once its parent's ended). */
  void onNewReplica(Connection c) {
    for (PreCopy pc : running.values()) {
      pc.includeWhenReady(c, tree.get(), replicas.get());
    }
  }

  /** True while pre-copy {@code id} runs and {@code name} is one of its files. */
  boolean isServable(long id, String name) {
    PreCopy pc = running.get(id);
    return pc != null && pc.files.containsKey(name);
  }

  /** The last pre-copy that ran to its end (all replicas done, skipped or timed out), or null. */
  PreCopyResult last() {
    return last;
  }

  void observer(PrimaryObserver observer) {
    this.observer = observer;
  }

  int running() {
    return running.size();
  }

  /** Ends all waiting at once (the primary is closing). */
  void close() {
    closed = true;
    for (PreCopy pc : running.values()) {
      synchronized (pc) {
        pc.notifyAll();
      }
    }
  }

  private final class PreCopy {
    final long id;
    final Map<String, FileMeta> files;
    /** In the order replicas were included, for the result. */
    final Map<Connection, Target> targets = new LinkedHashMap<>();
    final long deadline;
    /** Set once the merge stopped waiting: nobody is asked any more. */
    private boolean ended;

    PreCopy(long id, Map<String, FileMeta> files) {
      this.id = id;
      this.files = files;
      this.deadline = System.nanoTime() + timeout.toNanos();
    }

    final class Target implements ReplyListener {
      final Connection connection;
      volatile long requestId;
      volatile long lastHeard = System.nanoTime();
      volatile boolean done;
      volatile boolean success;
      /** Why this target ended; set once, by whoever ended it first. */
      volatile Outcome outcome;

      Target(Connection connection) {
        this.connection = connection;
      }

      @Override
      public boolean onReply(Message reply) {
        lastHeard = System.nanoTime();
        switch (reply) {
          case Message.PreCopyProgress p -> {
            return false;
          }
          case Message.PreCopyDone d -> finish(d.success(), d.success() ? Outcome.COPIED : Outcome.FAILED);
          default -> finish(false, Outcome.FAILED);
        }
        return true;
      }

      @Override
      public void onFailure(Throwable cause) {
        // Also called when we skip it (cancel): the skip's outcome was set first and stays.
        finish(false, connection.isOpen() ? Outcome.FAILED : Outcome.DISCONNECTED);
      }

      private void finish(boolean ok, Outcome why) {
        synchronized (PreCopy.this) {
          success = ok;
          done = true;
          end(why);
          includeChildren(connection.peerNodeId());
          PreCopy.this.notifyAll();
        }
      }

      /** Records why this target ended, unless it already has. */
      void end(Outcome why) {
        if (outcome == null) {
          outcome = why;
        }
      }
    }

    /**
     * Includes {@code c} now if it copies from the primary, its parent is not connected, or its
     * parent's pre-copy ended; otherwise it is included when that happens.
     */
    synchronized void includeWhenReady(Connection c, CopyTree plan, Collection<Connection> connected) {
      int parent = plan.parentOf(c.peerNodeId());
      if (parent == CopyTree.PRIMARY || connected.stream().noneMatch(o -> o.peerNodeId() == parent)) {
        include(c);
        return;
      }
      for (Target t : targets.values()) {
        if (t.connection.peerNodeId() == parent && t.done) {
          include(c);
          return;
        }
      }
    }

    /** The pre-copy of {@code parent} ended: its children are asked now (they find the files there, or fall back). */
    private void includeChildren(int parent) {
      List<Integer> children = tree.get().childrenOf(parent);
      if (children.isEmpty()) {
        return;
      }
      for (Connection c : replicas.get()) {
        if (children.contains(c.peerNodeId())) {
          include(c);
        }
      }
    }

    synchronized void include(Connection c) {
      if (ended || targets.containsKey(c) || !c.isOpen()) {
        return;
      }
      Target t = new Target(c);
      targets.put(c, t);
      t.requestId = c.requestStreaming(rid -> new Message.PreCopyMerge(rid, id, primaryGen.getAsLong(), files), t);
    }

    synchronized void await() throws InterruptedException {
      while (!closed) {
        long now = System.nanoTime();
        // A copy: a parent that ends here has its children included (added to the targets).
        for (Target t : List.copyOf(targets.values())) {
          if (t.done) {
            continue;
          }
          if (!t.connection.isOpen()) {
            t.done = true;
            t.end(Outcome.DISCONNECTED);
            includeChildren(t.connection.peerNodeId());
          } else if (now - t.lastHeard > keepAlive.toNanos()) {
            log.warn("replica {} sent no pre-copy progress for {}; merging without it", t.connection.peerNodeId(), keepAlive);
            skip(t, Outcome.NO_PROGRESS);
            includeChildren(t.connection.peerNodeId());
          } else if (now > deadline) {
            log.warn("replica {} did not finish pre-copy within {}; merging without it", t.connection.peerNodeId(), timeout);
            skip(t, Outcome.DEADLINE);
          }
        }
        boolean waiting = targets.values().stream().anyMatch(t -> !t.done);
        if (!waiting) {
          return;
        }
        wait(100);
      }
    }

    private void skip(Target t, Outcome why) {
      t.done = true;
      t.end(why);
      t.connection.cancel(t.requestId);
    }

    synchronized void abandonRemaining() {
      ended = true;
      for (Target t : targets.values()) {
        if (!t.done) {
          skip(t, Outcome.ABANDONED);
        }
      }
    }

    /** Each target's outcome so far; one still running (the primary is closing) is abandoned. */
    synchronized List<ReplicaOutcome> outcomes() {
      List<ReplicaOutcome> out = new ArrayList<>(targets.size());
      for (Target t : targets.values()) {
        Outcome o = t.outcome;
        out.add(new ReplicaOutcome(t.connection.peerNodeId(), o == null ? Outcome.ABANDONED : o));
      }
      return out;
    }

    synchronized int succeeded() {
      int n = 0;
      for (Target t : targets.values()) {
        if (t.success) {
          n++;
        }
      }
      return n;
    }
  }
}
