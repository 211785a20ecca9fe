package io.nrtcluster.cli;

import io.nrtcluster.election.ZooKeeperAuth;
import io.nrtcluster.node.ClusterAdmin;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt secure}: the migration of a cluster created without ZooKeeper credentials: every znode
 * of the cluster gets the ACL of {@code --zk-user} only.
 */
@Command(name = "secure", mixinStandardHelpOptions = true, description = {
    "Give every znode of cluster C the ACL of --zk-user only (every permission, nobody else): turns "
        + "on ZooKeeper authentication for a cluster created without it. Stop every node of the cluster "
        + "first, then start them with the same --zk-user credentials; a node still running without them "
        + "loses access to ZooKeeper.",
    "With --zk-previous-password-file: changes the password of --zk-user (the znodes are read with "
        + "the previous one and secured for the new one); stop every node first and start them with the new "
        + "password.",
    "Exit codes: 0 secured, 1 error, 2 usage (no --zk-user), 3 ZooKeeper unreachable, 4 unknown "
        + "cluster, 7 ZooKeeper denied access (the znodes belong to other credentials)."})
final class SecureCommand implements Callable<Integer> {
  @Mixin AdminOptions admin;

  @Option(names = "--zk-previous-password-file", paramLabel = "FILE",
      description = "File whose first line is the password the cluster's znodes are secured for now (a password change).")
  Path previousPasswordFile;

  @Spec CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    if (admin.zkAuth.user == null) {
      throw new ParameterException(spec.commandLine(), "--zk-user is required: the credentials the znodes are secured for");
    }
    try (ClusterAdmin a = admin.connect()) {
      int changed = previousPasswordFile == null ? a.secure(admin.cluster)
          : a.secure(admin.cluster, previous(ZooKeeperAuthOptions.readPassword(previousPasswordFile)));
      a.verifyAccess(admin.cluster);
      PrintWriter out = spec.commandLine().getOut();
      out.printf("secure: %d znode(s) of cluster %s changed; every znode is now readable and writable by ZooKeeper user %s only%n",
          changed, admin.cluster, admin.zkAuth.user);
      out.flush();
      return 0;
    }
  }

  private ZooKeeperAuth previous(String password) {
    try {
      return ZooKeeperAuth.builder().user(admin.zkAuth.user).password(password).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "the previous ZooKeeper password: " + e.getMessage());
    }
  }
}
