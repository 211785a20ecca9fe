package io.nrtcluster.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Directories a command writes its results into: absent or empty, never mixed with an earlier run's. */
final class OutputDirectory {
  private OutputDirectory() {}

  /** Fails as a usage error naming {@code option} when {@code dir} exists and holds anything. */
  static void requireEmpty(CommandSpec spec, String option, Path dir) throws IOException {
    if (Files.isDirectory(dir)) {
      try (var entries = Files.list(dir)) {
        if (entries.findAny().isPresent()) {
          throw new ParameterException(spec.commandLine(), option + " " + dir + " is not empty");
        }
      }
    }
  }
}
