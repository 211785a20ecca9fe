package io.nrtcluster.stress;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Runs an action on every node at once, one platform thread each (the common pool has one thread on 2 cores). */
final class Parallel {
  private Parallel() {}

  @FunctionalInterface
  interface NodeAction {
    void apply(NodeProcess node) throws IOException;
  }

  /** Applies {@code action} to every node concurrently; throws the first failure after all finished. */
  static void forEach(List<NodeProcess> nodes, String name, NodeAction action) throws IOException {
    List<Thread> threads = new ArrayList<>();
    IOException[] failure = new IOException[1];
    for (NodeProcess n : nodes) {
      threads.add(Thread.ofPlatform().name(name + "-N" + n.id()).start(() -> {
        try {
          action.apply(n);
        } catch (IOException | RuntimeException e) {
          synchronized (failure) {
            if (failure[0] == null) {
              failure[0] = e instanceof IOException io ? io : new IOException(e);
            } else {
              failure[0].addSuppressed(e);
            }
          }
        }
      }));
    }
    boolean interrupted = false;
    for (Thread t : threads) {
      while (true) {
        try {
          t.join();
          break;
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    if (failure[0] != null) {
      throw failure[0];
    }
  }
}
