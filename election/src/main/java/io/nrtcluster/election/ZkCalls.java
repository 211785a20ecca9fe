package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.NrtClusterException;
import org.apache.zookeeper.KeeperException;

/** Runs ZooKeeper operations for callers that only know the library's typed errors. */
final class ZkCalls {
  private ZkCalls() {}

  @FunctionalInterface
  interface Op<T> {
    T run() throws Exception;
  }

  /**
   * The result of {@code op}; its typed errors as they are, a denied operation as {@link
   * ZooKeeperAccess#denied(KeeperException.NoAuthException, ZooKeeperAuth)}, an interrupt (flag
   * restored) or any other failure as a {@link ConnectionException} naming {@code what}.
   */
  static <T> T call(ZooKeeperAuth auth, String what, Op<T> op) throws NrtClusterException {
    try {
      return op.run();
    } catch (NrtClusterException e) {
      throw e;
    } catch (KeeperException.NoAuthException e) {
      throw ZooKeeperAccess.denied(e, auth);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ConnectionException("interrupted while " + what, e);
    } catch (Exception e) {
      throw new ConnectionException(what + " failed: " + e, e);
    }
  }
}
