package io.nrtcluster.stress.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.zookeeper.server.quorum.QuorumPeerMain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One ZooKeeper quorum peer as a process: writes {@code zoo.cfg} and {@code myid} into its data
 * directory and runs ZooKeeper's own {@link QuorumPeerMain} on them, in the foreground until killed.
 * It listens for clients only on {@code --address} and for its peers on the address its
 * {@code --server} line gives it, so cutting that address cuts the server. Four-letter words beyond
 * ZooKeeper's own {@code srvr} and the admin server are off; the transaction log and snapshots stay in
 * {@code <data>/version-2}; an ensemble of one is a quorum of one (not standalone mode), so every size
 * has the same layout.
 */
@Command(name = "zk-server", mixinStandardHelpOptions = true, description = "One ZooKeeper server of an ensemble.")
public final class ZkServerMain implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(ZkServerMain.class);
  private static final Pattern SERVER = Pattern.compile("\\d+=[0-9.]+:\\d+:\\d+");

  @Option(names = "--id", required = true, description = "This server's id (myid), one of the --server ids.")
  int id;

  @Option(names = "--data", required = true, description = "Data directory (zoo.cfg, myid, version-2).")
  Path data;

  @Option(names = "--address", required = true, description = "Address clients connect to.")
  String address;

  @Option(names = "--client-port", defaultValue = "2181")
  int clientPort;

  @Option(names = "--server", required = true,
      description = "One ensemble member as id=address:quorumPort:electionPort; repeat for each.")
  List<String> servers;

  @Option(names = "--tick-ms", defaultValue = "500",
      description = "ZooKeeper's tick; session timeouts are bounded to [2, 20] ticks.")
  int tickMillis;

  public static void main(String[] args) {
    int code = new CommandLine(new ZkServerMain()).execute(args);
    // QuorumPeerMain returns only when it fails to start or its peer stops.
    System.exit(code);
  }

  @Override
  public Integer call() throws IOException {
    for (String s : servers) {
      if (!SERVER.matcher(s).matches()) {
        throw new CommandLine.ParameterException(new CommandLine(this), "--server must be id=ip:port:port: " + s);
      }
    }
    if (servers.stream().noneMatch(s -> s.startsWith(id + "="))) {
      throw new CommandLine.ParameterException(new CommandLine(this), "--id " + id + " is not among " + servers);
    }
    Files.createDirectories(data);
    Path cfg = data.resolve("zoo.cfg");
    Files.writeString(cfg, config(), StandardCharsets.UTF_8);
    Files.writeString(data.resolve("myid"), id + "\n", StandardCharsets.UTF_8);
    LOG.info("zk{}: serving {}:{} in ensemble {}", id, address, clientPort, servers);
    QuorumPeerMain.main(new String[] {cfg.toString()});
    return 1;
  }

  String config() {
    StringBuilder b = new StringBuilder()
        .append("tickTime=").append(tickMillis).append('\n')
        .append("initLimit=20\n")
        .append("syncLimit=5\n")
        .append("dataDir=").append(data.toAbsolutePath()).append('\n')
        .append("clientPort=").append(clientPort).append('\n')
        .append("clientPortAddress=").append(address).append('\n')
        .append("standaloneEnabled=false\n")
        .append("reconfigEnabled=false\n")
        .append("admin.enableServer=false\n")
        .append("4lw.commands.whitelist=\n")
        .append("autopurge.purgeInterval=0\n");
    for (String s : servers) {
      b.append("server.").append(s).append('\n');
    }
    return b.toString();
  }
}
