package io.nrtcluster.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** One {@code nrt} command run in this JVM, with what it printed and its exit code. */
record NrtRun(int exit, String out, String err) {
  static NrtRun nrt(String... args) {
    CommandLine cmd = Main.commandLine();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cmd.setOut(new PrintWriter(out, true));
    cmd.setErr(new PrintWriter(err, true));
    int exit = cmd.execute(args);
    return new NrtRun(exit, out.toString(), err.toString());
  }
}
