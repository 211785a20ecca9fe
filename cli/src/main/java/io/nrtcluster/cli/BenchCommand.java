package io.nrtcluster.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.stress.bench.BenchCompare;
import io.nrtcluster.stress.bench.BenchConfig;
import io.nrtcluster.stress.bench.BenchMarkdown;
import io.nrtcluster.stress.bench.BenchFigure;
import io.nrtcluster.stress.bench.BenchRuns;
import io.nrtcluster.stress.bench.BootstrapConfig;
import io.nrtcluster.stress.bench.ScaleConfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/** {@code nrt bench}: the benchmarks, each figure against a baseline measured in the same run. */
@Command(
    name = "bench",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Runs the benchmarks on this machine: a primary and two replicas as separate JVMs on loopback, and a single-node "
          + "Lucene application as the baseline, indexing real text (Europarl) at set rates and refresh intervals.",
      "Figures, each a ratio against a baseline from the same run: replica visibility lag vs local NRT refresh time; "
          + "commit-based replication vs NRT replication; merge pre-copy throughput vs raw loopback and disk speed; "
          + "replica CPU vs primary CPU and vs a node indexing every document; replica search throughput while copying "
          + "vs idle; failover time after kill -9 of the primary and the acknowledged documents it loses per durability; "
          + "write-to-acknowledgement latency of REPLICATED vs LOCAL refreshes, without and with --link-delay.",
      "The scale figure (scale): --nodes node processes (3) each hosting --indexes indexes (100): start to every index "
          + "searching, threads "
          + "and heap per index, primaries per node, ZooKeeper writes at a refresh per second per index, kill -9 of a "
          + "node to every index writable, and the rebalance after its return; against the same nodes with one index.",
      "The bootstrap figure (bootstrap): a primary with an index of --bootstrap-index-mb (1024) backed up to an "
          + "S3-compatible store (S3Proxy in this JVM, in memory: give it the heap) while two new replicas bootstrap it "
          + "at 1,000 docs/s of indexing, from the primary and from the store: the primary's bytes sent and CPU, time to "
          + "searching, indexing rate; target: from the store the primary sends at most 5%% of the index's bytes.",
      "The fan-out figure (fanout): a primary and 1, 2 and 4 replicas, every replica copying from the primary and then "
          + "through a copy tree (one direct replica, two children per parent): the primary's bytes sent per new byte, "
          + "lag per level of the tree, and the merge pre-copy of a large segment per replica against raw transfers.",
      "Writes a table to stdout and DIR/bench.json plus lag plots (DIR/lag-*.png). By default three complete runs "
          + "(DIR/run-1..3), combined into medians with each run's values; --quick one short run.",
      "With --compare BASE.json, then prints every ratio against that run; exit code 5 when one got worse beyond the tolerance. "
          + "With --compare-run BENCH.json as well, it runs nothing and compares that finished run instead."
    })
public final class BenchCommand implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Directory for bench.json, the plots and the node directories (created; must be empty or absent).")
  Path out;

  @Option(names = "--quick",
      description = "One rate, one refresh interval, a 128 MiB merge, 2 failovers, 12 indexes in the scale figure.")
  boolean quick;

  @Option(names = "--profile", description = "Record a JFR profile of every node process (DIR/*/node.jfr).")
  boolean profile;

  @Option(names = "--figures", split = ",", paramLabel = "FIGURE",
      description = "Measure only these, comma-separated: grid (figures 1, 2, 4), search (5), copy (3), failover (6), "
          + "delay (8), scale (9), bootstrap (10), durability (11), fanout (12), followers (13). "
          + "Default: all.",
      converter = FigureConverter.class)
  Set<BenchFigure> figures = EnumSet.allOf(BenchFigure.class);

  @Option(names = "--rates", split = ",", paramLabel = "DOCS_PER_SEC",
      description = "The grid's indexing rates, comma-separated (default: 1000,10000; with --quick 1000).")
  List<Integer> rates;

  @Option(names = "--refresh", split = ",", paramLabel = "MILLIS",
      description = "The grid's refresh intervals in milliseconds, comma-separated (default: 100,1000; with --quick 250).")
  List<Integer> refreshMs;

  @Option(names = "--link-delay", paramLabel = "MILLIS", defaultValue = "25",
      description = "Figures 8's and 11's one-way delay between the cluster nodes in milliseconds (default 25: a 50 ms "
          + "round trip).")
  int linkDelayMs;

  @Option(names = "--indexes", paramLabel = "N",
      description = "The scale figure's indexes per node (default 100; with --quick 12).")
  Integer indexes;

  @Option(names = "--nodes", paramLabel = "N", description = "The scale figure's node processes (default 3).")
  Integer nodes;

  @Option(names = "--markdown", paramLabel = "BENCH.json",
      description = "Run nothing: print that run's bench.json as Markdown (commit, machine, one table per figure), the "
          + "block docs/benchmarks.md embeds.")
  Path markdown;

  @Option(names = "--compare", paramLabel = "BASE.json",
      description = "After the run, print each figure's ratios against this earlier run's bench.json (its commit named) "
          + "and flag those that got worse beyond --compare-tolerance; exit code 5 when any did.")
  Path compare;

  @Option(names = "--compare-run", paramLabel = "BENCH.json",
      description = "Run nothing: compare this finished run's bench.json with --compare BASE.json, as after a run "
          + "(for example two committed runs).")
  Path compareRun;

  @Option(names = "--compare-tolerance", paramLabel = "FRACTION",
      description = "How far a ratio may move beyond the base's lowest and highest run before --compare calls it better "
          + "or worse (default 0.1 when the base combined several runs; 0.25 for a single run, whose values have "
          + "spread that much).")
  Double compareTolerance;

  @Option(names = "--runs", paramLabel = "N",
      description = "Measure every figure in N complete runs, each with fresh processes (DIR/run-K), and write their "
          + "medians with each run's values to DIR/bench.json (default 3; with --quick 1).")
  Integer runs;

  @Option(names = "--bootstrap-index-mb", paramLabel = "MIB",
      description = "The bootstrap figure's index size in MiB (default 1024; with --quick 128).")
  Long bootstrapIndexMb;

  @Override
  public Integer call() throws Exception {
    if (markdown != null) {
      return printMarkdown();
    }
    if (compareRun != null) {
      if (compare == null) {
        throw new ParameterException(spec.commandLine(), "--compare-run needs --compare BASE.json (the run to compare it with)");
      }
      JsonNode base = readBase();
      return printComparison(base, readRun("--compare-run", compareRun), new Console(spec.commandLine().getOut()));
    }
    if (out == null) {
      throw new ParameterException(spec.commandLine(), "Missing required option: '--out=DIR' (or --markdown BENCH.json)");
    }
    OutputDirectory.requireEmpty(spec, "--out", out);
    int repeat = runs != null ? runs : quick ? 1 : 3;
    if (repeat < 1 || repeat > 20) {
      throw new ParameterException(spec.commandLine(), "--runs must be in [1, 20], got " + repeat);
    }
    JsonNode base = compare == null ? null : readBase();
    Path dir = out.toAbsolutePath();
    Console console = new Console(spec.commandLine().getOut());
    BenchConfig config = quick ? BenchConfig.quick(dir) : BenchConfig.full(dir);
    config = config.only(figures).grid(rates == null ? config.docsPerSec() : rates,
        refreshMs == null ? config.refreshMs() : refreshMs).linkDelay(linkDelayMs);
    ScaleConfig scale = config.scale();
    try {
      scale = indexes == null ? scale : scale.withIndexes(indexes);
      scale = nodes == null ? scale : scale.withNodes(nodes);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--" + e.getMessage());
    }
    config = config.scale(scale);
    if (bootstrapIndexMb != null) {
      try {
        config = config.bootstrap(config.bootstrap().withIndexMb(bootstrapIndexMb));
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "--bootstrap-index-mb: " + e.getMessage());
      }
    }
    if (config.runs(BenchFigure.BOOTSTRAP) || config.runs(BenchFigure.FOLLOWERS)) {
      StoreLog.toFile(dir.resolve("object-store.log"));
    }
    JsonNode now = BenchRuns.run(profile ? config.profiled() : config, repeat, console::println);
    return base == null ? 0 : printComparison(base, now, console);
  }

  /** Prints {@code now}'s ratios against {@code base}'s; 5 when one got worse beyond the tolerance, else 0. */
  private int printComparison(JsonNode base, JsonNode now, Console console) {
    double tolerance = compareTolerance != null ? compareTolerance : BenchCompare.defaultTolerance(base);
    List<BenchCompare.Line> lines = BenchCompare.compare(base, now, tolerance);
    console.println(BenchCompare.render(base, now, lines, tolerance));
    return BenchCompare.regressed(lines) ? 5 : 0;
  }

  private int printMarkdown() {
    JsonNode report = readRun("--markdown", markdown);
    spec.commandLine().getOut().println(BenchMarkdown.BEGIN);
    spec.commandLine().getOut().println(BenchMarkdown.render(report));
    spec.commandLine().getOut().println(BenchMarkdown.END);
    spec.commandLine().getOut().flush();
    return 0;
  }

  /** The base run of {@code --compare}, read before anything runs: a bad file is a usage error. */
  private JsonNode readBase() {
    if (compareTolerance != null && !(compareTolerance >= 0 && compareTolerance < 10)) {
      throw new ParameterException(spec.commandLine(), "--compare-tolerance must be in [0, 10), got " + compareTolerance);
    }
    return readRun("--compare", compare);
  }

  /** A run's bench.json named by {@code option}; a file that cannot be read or holds no figures is a usage error. */
  private JsonNode readRun(String option, Path file) {
    try {
      JsonNode run = new ObjectMapper().readTree(file.toFile());
      if (run == null || !run.path("figures").isObject()) {
        throw new ParameterException(spec.commandLine(), option + ": " + file + " is not a bench.json (no figures)");
      }
      return run;
    } catch (IOException e) {
      throw new ParameterException(spec.commandLine(), option + ": cannot read " + file + ": " + e.getMessage());
    }
  }

  /** Accepts the lower-case figure names the help shows. */
  static final class FigureConverter implements ITypeConverter<BenchFigure> {
    @Override
    public BenchFigure convert(String value) {
      for (BenchFigure f : BenchFigure.values()) {
        if (f.label().equals(value.trim().toLowerCase(Locale.ROOT))) {
          return f;
        }
      }
      throw new TypeConversionException("unknown figure '" + value
          + "' (grid, search, copy, failover, delay, scale, bootstrap, durability, fanout, followers)");
    }
  }
}
