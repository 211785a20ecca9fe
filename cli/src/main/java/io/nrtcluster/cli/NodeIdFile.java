package io.nrtcluster.cli;

import io.nrtcluster.cli.Main.CliException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;

/** {@code DIR/node.id}: the node id {@code nrt node} uses when {@code --id} is not given. */
final class NodeIdFile {
  static final String NAME = "node.id";

  private NodeIdFile() {}

  /** The id kept in {@code dir/node.id}; a random one (1-65535) is created there on first start. */
  static int read(Path dir, Console out) {
    Path file = dir.resolve(NAME);
    try {
      if (Files.exists(file)) {
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        try {
          int n = Integer.parseInt(text);
          if (n >= 1 && n <= 65535) {
            return n;
          }
        } catch (NumberFormatException e) {
          // Reported below.
        }
        throw new CliException(file + " does not hold a node id (1-65535) but '" + text
            + "': fix it, delete it, or pass --id");
      }
      int n = 1 + new SecureRandom().nextInt(65535);
      Path tmp = dir.resolve(NAME + ".tmp");
      Files.writeString(tmp, n + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      out.println("note: chose node id " + n + " at random and kept it in " + file
          + "; production should pass --id explicitly (ids must be unique in the cluster)");
      return n;
    } catch (IOException e) {
      throw new CliException("data directory " + dir + " is not usable: " + Main.describe(e), e);
    }
  }
}
