package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.node.HostConfig;
import io.nrtcluster.node.NrtHost;
import io.nrtcluster.transport.TransportConfig;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/** Starting cluster hosts from the command line (nrt node, nrt demo): shared settings, one-line failures. */
final class Hosts {
  private Hosts() {}

  /** Transport settings of every host the command line starts. */
  static TransportConfig transport() {
    return TransportConfig.builder().ioThreads(2).requestThreads(8).build();
  }

  /**
   * Starts a host; an unreachable ZooKeeper, a port in use or an unusable data directory fails with
   * a one-line message naming the node (nrtcluster's own errors keep their code, hence exit code).
   */
  static NrtHost start(HostConfig config) throws NrtClusterException {
    String what = "node N" + config.nodeId() + " could not start: ";
    try {
      return NrtHost.start(config);
    } catch (NrtClusterException e) {
      throw new NrtClusterException(e.code(), what + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      throw new CliException(what + Main.describe(e), e);
    }
  }

  /** The ZooKeeper connect string a host uses, marked when it runs the embedded server. */
  static String zooKeeper(NrtHost host, HostConfig config) {
    return host.zooKeeperConnectString() + (config.embeddedZooKeeper() ? " (embedded in this process)" : "");
  }

  /**
   * The embedded ZooKeeper waits long and logs a stack trace when its port is taken: say it at once.
   * (0 picks a free port.)
   */
  static void requireFreeZooKeeperPort(int port) {
    if (port == 0) {
      return;
    }
    try (ServerSocket s = new ServerSocket()) {
      s.bind(new InetSocketAddress("127.0.0.1", port));
    } catch (IOException e) {
      throw new CliException("port " + port + " for the embedded ZooKeeper is in use (" + e.getMessage() + "): connect "
          + "to the ZooKeeper there with --zk 127.0.0.1:" + port + ", or choose another --zk-port");
    }
  }

  /**
   * Closes the host on a thread of its own and waits for it, so that an interrupt of this thread
   * cannot reach the commits' file I/O: {@code Thread.interrupt()} sets the status before it looks
   * for an I/O operation to abort, so an interrupt this thread just consumed can still close the
   * next FileChannel it opens (seen on JDK 25 as ClosedByInterruptException in a directory fsync).
   */
  static void closeUninterruptibly(Closeable host) throws IOException {
    CompletableFuture<Void> closed = new CompletableFuture<>();
    Thread.ofPlatform().name("nrt-node-close").start(() -> {
      try {
        host.close();
        closed.complete(null);
      } catch (Throwable t) {
        closed.completeExceptionally(t);
      }
    });
    boolean interrupted = false;
    try {
      while (true) {
        try {
          closed.get();
          return;
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException e) {
          Throwable t = e.getCause();
          if (t instanceof IOException io) {
            throw io;
          }
          throw t instanceof RuntimeException re ? re : new IllegalStateException(t);
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
