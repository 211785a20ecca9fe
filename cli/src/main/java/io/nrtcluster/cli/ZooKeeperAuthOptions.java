package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import io.nrtcluster.election.ZooKeeperAuth;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * ZooKeeper credentials of every command that talks to a cluster's ZooKeeper. The password is never
 * an argument (it would show in {@code ps} and shell history): it comes from a file or from the
 * {@value #PASSWORD_ENV} environment variable.
 */
final class ZooKeeperAuthOptions {
  /** Environment variable holding the ZooKeeper password when no {@code --zk-password-file} is given. */
  static final String PASSWORD_ENV = "NRT_ZK_PASSWORD";

  @Spec(Spec.Target.MIXEE)
  CommandSpec mixee;

  @Option(names = "--zk-user", paramLabel = "USER",
      description = "Authenticate to ZooKeeper as digest user USER; every znode the cluster creates is then readable "
          + "and writable by USER only. Password: --zk-password-file or the " + PASSWORD_ENV + " environment variable.")
  String user;

  @Option(names = "--zk-password-file", paramLabel = "FILE",
      description = "File whose first line is the ZooKeeper password of --zk-user (keep it readable by the node's user only).")
  Path passwordFile;

  /** The credentials given, or null when none (open ACLs); a usage error when half given. */
  ZooKeeperAuth auth() {
    if (user == null) {
      if (passwordFile != null) {
        throw new ParameterException(mixee.commandLine(), "--zk-password-file needs --zk-user");
      }
      return null;
    }
    String password = passwordFile != null ? readPassword(passwordFile) : System.getenv(PASSWORD_ENV);
    if (password == null || password.isEmpty()) {
      throw new ParameterException(mixee.commandLine(), "--zk-user needs a password: --zk-password-file FILE or the "
          + PASSWORD_ENV + " environment variable");
    }
    try {
      return ZooKeeperAuth.builder().user(user).password(password).build();
    } catch (IllegalArgumentException e) {
      throw new ParameterException(mixee.commandLine(), e.getMessage().replace("zooKeeperAuth.user", "--zk-user")
          .replace("zooKeeperAuth.password", "the ZooKeeper password"));
    }
  }

  /** The first line of {@code file}, without its line end; a one-line error when unreadable or empty. */
  static String readPassword(Path file) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new CliException("cannot read the ZooKeeper password file: " + Main.describe(e), e);
    }
    int end = text.indexOf('\n');
    String line = end < 0 ? text : text.substring(0, end);
    if (line.endsWith("\r")) {
      line = line.substring(0, line.length() - 1);
    }
    if (line.isEmpty()) {
      throw new CliException("the ZooKeeper password file " + file + " is empty");
    }
    return line;
  }
}
