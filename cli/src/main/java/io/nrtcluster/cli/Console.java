package io.nrtcluster.cli;

import java.io.PrintWriter;

/** A command's stdout, shared by its threads: whole lines, each flushed at once (other processes read them). */
final class Console {
  private final PrintWriter out;

  Console(PrintWriter out) {
    this.out = out;
  }

  synchronized void println(String line) {
    out.println(line);
    out.flush();
  }
}
