package io.nrtcluster.cli;

import io.nrtcluster.common.NrtClusterException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code nrt}: the command line of nrtcluster. Every error a user can cause ends in one line on
 * stderr and a non-zero exit code; stack traces only with {@code -Dnrt.log.level=DEBUG}.
 */
@Command(
    name = "nrt",
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    subcommands = {NodeCommand.class, StatusCommand.class, PromoteCommand.class, RebalanceCommand.class, CommitCommand.class,
        SecureCommand.class, BackupCommand.class, RestoreCommand.class,
        DemoCommand.class, ChaosCommand.class, BenchCommand.class, ExampleServiceCommand.class, CommandLine.HelpCommand.class},
    description = "Lucene near-real-time segment replication as a working cluster.",
    commandListHeading = "%nCommands:%n")
public final class Main implements Callable<Integer> {
  /** Exit code of a run that did its work but whose outcome was wrong (e.g. replicas disagree). */
  public static final int EXIT_FAILED = 1;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new ParameterException(spec.commandLine(), "missing command");
  }

  /** The configured command line; {@code main} and tests run it with {@link CommandLine#execute}. */
  public static CommandLine commandLine() {
    quietJulLogging();
    CommandLine cmd = new CommandLine(new Main());
    cmd.setCaseInsensitiveEnumValuesAllowed(true);
    cmd.setParameterExceptionHandler(Main::onParameterError);
    cmd.setExecutionExceptionHandler(Main::onExecutionError);
    cmd.setExecutionStrategy(Main::refuseUnmatchedThenRun);
    return cmd;
  }

  /**
   * picocli skips its check for unmatched arguments when a help option is present, so {@code nrt
   * backup --help} would print the top-level usage and exit 0 as if {@code backup} existed: any
   * unmatched argument, on any level, is a usage error (exit 2) naming it, help option or not.
   */
  private static int refuseUnmatchedThenRun(CommandLine.ParseResult parsed) {
    for (CommandLine.ParseResult p = parsed; p != null; p = p.subcommand()) {
      if (!p.unmatched().isEmpty()) {
        throw new CommandLine.UnmatchedArgumentException(p.commandSpec().commandLine(), p.unmatched());
      }
    }
    return new CommandLine.RunLast().execute(parsed);
  }

  /** Set by {@link #main}: this process is the command line's own, so it may handle SIGINT/SIGTERM. */
  private static volatile boolean ownsJvm;

  /** True when running as the {@code nrt} process (not inside a test or another application). */
  static boolean ownsJvm() {
    return ownsJvm;
  }

  public static void main(String[] args) {
    ownsJvm = true;
    int exit;
    try {
      exit = commandLine().execute(args);
    } catch (Throwable t) { // Errors (not Exceptions) escape picocli's handler.
      System.err.println("nrt: internal error: " + describe(t)
          + (debugging() ? "" : " (stack trace with -Dnrt.log.level=DEBUG)"));
      if (debugging()) {
        t.printStackTrace();
      }
      exit = 70;
    }
    System.exit(exit);
  }

  /** Strong references: java.util.logging keeps loggers weakly, and would forget the levels set below. */
  private static final Logger LUCENE_JUL = Logger.getLogger("org.apache.lucene");

  private static final Logger LUCENE_VECTORIZATION_JUL = Logger.getLogger("org.apache.lucene.internal.vectorization");

  /**
   * Lucene reports through java.util.logging (e.g. one INFO line about the vector API at startup);
   * like everything else, show only warnings unless {@code -Dnrt.log.level} asks for more.
   */
  static void quietJulLogging() {
    String level = System.getProperty("nrt.log.level", "WARN").toUpperCase(Locale.ROOT);
    if (!(debugging() || level.equals("INFO"))) {
      LUCENE_JUL.setLevel(Level.WARNING);
      // bin/nrt runs without the incubating Vector API on purpose (the JVM would print "Using
      // incubator modules" before every command); Lucene's warning that it is missing is that
      // choice, not a problem, so it shows only at INFO and below.
      LUCENE_VECTORIZATION_JUL.setLevel(Level.SEVERE);
    }
  }

  /** Usage errors: one line naming the problem and where help is, exit code 2. */
  private static int onParameterError(ParameterException e, String[] args) {
    CommandLine c = e.getCommandLine();
    String name = c.getCommandSpec().qualifiedName();
    PrintWriter err = c.getErr();
    String what = oneLine(e.getMessage());
    if (e instanceof CommandLine.UnmatchedArgumentException u && !c.getSubcommands().isEmpty()
        && !u.getUnmatched().isEmpty() && !u.getUnmatched().get(0).startsWith("-")) {
      what = "unknown command '" + u.getUnmatched().get(0) + "' (commands: "
          + String.join(", ", c.getSubcommands().keySet()) + ")";
    }
    err.println(name + ": " + what + " (see '" + name + " --help')");
    err.flush();
    return c.getCommandSpec().exitCodeOnInvalidInput();
  }

  /** Failures while running: one line, exit code 1; the stack trace only when debugging. */
  private static int onExecutionError(Exception e, CommandLine c, CommandLine.ParseResult parsed) {
    PrintWriter err = c.getErr();
    err.println(c.getCommandSpec().qualifiedName() + ": " + describe(e));
    if (debugging()) {
      e.printStackTrace(err);
    }
    err.flush();
    return exitCode(e);
  }

  /** Exit code of a failed run, stable for scripts: see each command's help. */
  static int exitCode(Throwable e) {
    if (!(e instanceof NrtClusterException n)) {
      return EXIT_FAILED;
    }
    return switch (n.code()) {
      case CONNECTION, TIMEOUT, NOT_PUBLISHED, OBJECT_STORE_UNAVAILABLE -> 3;
      case WRONG_CLUSTER, UNKNOWN_INDEX, UNKNOWN_NODE, BACKUP_NOT_FOUND -> 4;
      case REFUSED, NOT_PRIMARY, CORRUPT_LOCAL_FILE, BACKUP_CORRUPT -> 5;
      case PROMOTION_FAILED -> 6;
      case ZOOKEEPER_ACCESS_DENIED, ZOOKEEPER_OPEN_ACL, OBJECT_STORE_ACCESS -> 7;
      default -> EXIT_FAILED;
    };
  }

  /** A user-facing description of an exception: its message, with the type where the message alone is unclear. */
  static String describe(Throwable e) {
    Throwable t = e instanceof UncheckedIOException && e.getCause() != null ? e.getCause() : e;
    String msg = t.getMessage();
    String text;
    if (t instanceof CliException || t instanceof IllegalArgumentException || t instanceof NrtClusterException) {
      text = msg;
    } else if (t instanceof NoSuchFileException) {
      text = "no such file or directory: " + ((NoSuchFileException) t).getFile();
    } else if (t instanceof FileAlreadyExistsException || t instanceof NotDirectoryException) {
      text = "not a directory: " + ((FileSystemException) t).getFile();
    } else if (t instanceof AccessDeniedException) {
      text = "permission denied: " + ((AccessDeniedException) t).getFile();
    } else {
      text = t.getClass().getSimpleName() + (msg == null ? "" : ": " + msg);
    }
    return oneLine(text == null ? t.getClass().getSimpleName() : text);
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  static boolean debugging() {
    String level = System.getProperty("nrt.log.level", "").toUpperCase(Locale.ROOT);
    return level.equals("DEBUG") || level.equals("TRACE") || level.equals("ALL");
  }

  /** A failure whose message is meant for the user as it is. */
  public static final class CliException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CliException(String message) {
      super(message);
    }

    public CliException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String v = Main.class.getPackage().getImplementationVersion();
      return new String[] {"nrt " + (v == null ? "(development build)" : v) + " on Java " + Runtime.version()};
    }
  }
}
