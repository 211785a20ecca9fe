package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.IllegalFormatException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

/**
 * Every command and subcommand of {@code nrt}, found by walking picocli's tree, answers --help with its
 * usage and exit 0, and describes itself in paragraphs picocli can wrap.
 */
@Timeout(60)
class HelpTreeTest {
  @Test
  void everyCommandAnswersHelpWithItsUsage() {
    List<List<String>> paths = paths();
    assertThat(paths).as("the tree").hasSizeGreaterThan(10);
    List<String> failures = new ArrayList<>();
    for (List<String> path : paths) {
      List<String> args = new ArrayList<>(path);
      args.add("--help");
      NrtRun r = NrtRun.nrt(args.toArray(String[]::new));
      String name = String.join(" ", path);
      if (r.exit() != 0 || !r.out().contains("Usage: nrt" + (name.isEmpty() ? "" : " " + name))) {
        failures.add("nrt " + name + " --help: exit " + r.exit() + ", err: " + r.err().strip()
            + ", out starts: " + r.out().lines().findFirst().orElse(""));
      }
    }
    assertThat(failures).as("commands whose --help fails").isEmpty();
  }

  /**
   * picocli wraps each description paragraph to the terminal's width; a paragraph broken by hand in
   * the middle of a sentence comes out as a wrapped line followed by a stub. Every paragraph is a
   * whole sentence (or sentences) instead.
   */
  @Test
  void everyDescriptionParagraphIsWholeSentences() {
    List<String> broken = new ArrayList<>();
    for (List<String> path : paths()) {
      CommandLine cmd = command(path);
      for (String paragraph : cmd.getCommandSpec().usageMessage().description()) {
        if (!paragraph.strip().endsWith(".")) {
          broken.add("nrt " + String.join(" ", path) + ": \"" + paragraph + "\"");
        }
      }
    }
    assertThat(broken).as("description paragraphs that stop mid-sentence").isEmpty();
  }

  /**
   * picocli formats every description as a format string; one it cannot format (a bare {@code %})
   * is printed raw, {@code %n} and all, after a warning on the console.
   */
  @Test
  void everyDescriptionIsAFormatPicocliCanFormat() {
    List<String> bad = new ArrayList<>();
    for (List<String> path : paths()) {
      CommandLine cmd = command(path);
      List<String> texts = new ArrayList<>(List.of(cmd.getCommandSpec().usageMessage().description()));
      cmd.getCommandSpec().options().forEach(o -> texts.addAll(List.of(o.description())));
      cmd.getCommandSpec().positionalParameters().forEach(p -> texts.addAll(List.of(p.description())));
      for (String text : texts) {
        try {
          String.format(text);
        } catch (IllegalFormatException e) {
          bad.add("nrt " + String.join(" ", path) + ": " + e + " in \"" + text + "\"");
        }
      }
    }
    assertThat(bad).as("descriptions picocli cannot format").isEmpty();
  }

  /** Every command's path of subcommand names, the root's empty. */
  private static List<List<String>> paths() {
    List<List<String>> paths = new ArrayList<>();
    walk(Main.commandLine(), new ArrayList<>(), paths);
    return paths;
  }

  /** A fresh command tree's command at {@code path}. */
  private static CommandLine command(List<String> path) {
    CommandLine cmd = Main.commandLine();
    for (String name : path) {
      cmd = cmd.getSubcommands().get(name);
    }
    return cmd;
  }

  private static void walk(CommandLine cmd, List<String> path, List<List<String>> out) {
    out.add(List.copyOf(path));
    for (Map.Entry<String, CommandLine> sub : cmd.getSubcommands().entrySet()) {
      if (sub.getValue().getCommandSpec().helpCommand() || !sub.getKey().equals(sub.getValue().getCommandName())) {
        continue; // the help command itself, and aliases
      }
      List<String> next = new ArrayList<>(path);
      next.add(sub.getKey());
      walk(sub.getValue(), next, out);
    }
  }
}
