package io.nrtcluster.election;

import io.nrtcluster.common.ConnectionException;
import io.nrtcluster.common.Internal;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * A real single ZooKeeper server inside this JVM, for trying a cluster on one host. It is a single
 * point of failure: production uses a ZooKeeper ensemble and passes its connect string instead.
 * It listens on the loopback address only.
 */
@Internal
public final class EmbeddedZooKeeper implements Closeable {
  private final ZooKeeperServerEmbedded server;
  private final String connectString;

  private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, String connectString) {
    this.server = server;
    this.connectString = connectString;
  }

  /** Starts a server with its data in {@code dir}, on {@code port} (0: a free one). */
  public static EmbeddedZooKeeper start(Path dir, int port) throws ConnectionException {
    try {
      Files.createDirectories(dir);
      int clientPort = port == 0 ? freePort() : port;
      if (port != 0) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
          probe.setReuseAddress(true);
        } catch (IOException e) {
          throw new ConnectionException("cannot start the embedded ZooKeeper: port " + port + " is in use");
        }
      }
      Properties p = new Properties();
      p.setProperty("clientPort", Integer.toString(clientPort));
      p.setProperty("clientPortAddress", "127.0.0.1");
      p.setProperty("tickTime", "500");
      p.setProperty("initLimit", "10");
      p.setProperty("syncLimit", "5");
      p.setProperty("minSessionTimeout", "1000");
      p.setProperty("maxSessionTimeout", "60000");
      p.setProperty("admin.enableServer", "false");
      p.setProperty("4lw.commands.whitelist", "ruok,srvr,stat");
      ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder().baseDir(dir).configuration(p)
          .exitHandler(ExitHandler.LOG_ONLY).build();
      server.start(10_000);
      return new EmbeddedZooKeeper(server, "127.0.0.1:" + clientPort);
    } catch (ConnectionException e) {
      throw e;
    } catch (Exception e) {
      throw new ConnectionException("cannot start the embedded ZooKeeper in " + dir + ": " + e, e);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  /** {@code 127.0.0.1:<port>}. */
  public String connectString() {
    return connectString;
  }

  @Override
  public void close() {
    server.close();
  }
}
