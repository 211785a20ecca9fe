package io.nrtcluster.stress.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A benchmark measured over several complete runs, each with fresh node processes, combined into one
 * {@code bench.json}: every figure's numbers are the median over the runs, and {@code spread} lists,
 * for every fractional number that the runs measured (ratios, latencies, rates), each run's value in
 * run order, so a reader sees the median with its minimum and maximum. A target is met when the
 * median meets it.
 *
 * <p>Where the runs disagree in shape (a cell one run failed, a list of another length), the first
 * run's shape wins and a number is the median of the runs that have it at the same place; {@code
 * spread} then lists only those runs' values. Text (notes, cell names) is the first run's.
 *
 * <p>The runs alternate the order of paired measurements where a figure supports it (figure 1's
 * grid measures the baseline first in odd-numbered runs and the cluster first in even-numbered
 * ones), so an order bias does not always favour the same side.
 *
 * <p>The combined file begins with {@code provenance} (the first run's commit, dirty when any run's
 * tree was, from the first run's start to the last run's end), {@code machine} and {@code config} of
 * the first run, then {@code runs} (each run's provenance and directory), {@code figures} and {@code
 * spread}. Each run's own {@code bench.json} and plots stay in {@code run-K/}.
 */
public final class BenchRuns {
  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private BenchRuns() {}

  /**
   * Runs {@code config} {@code runs} times, each in {@code config.out()/run-K} with its own processes,
   * and writes the combined report to {@code config.out()/bench.json}. One run writes its report
   * there directly, as a single run always did.
   */
  public static JsonNode run(BenchConfig config, int runs, Consumer<String> out) throws Exception {
    if (runs < 1 || runs > 20) {
      throw new IllegalArgumentException("runs must be in [1, 20], got " + runs);
    }
    Path bench = config.out().resolve("bench.json");
    if (runs == 1) {
      BenchRun.run(config, out);
      return JSON.readTree(bench.toFile());
    }
    List<JsonNode> reports = new ArrayList<>();
    List<String> dirs = new ArrayList<>();
    for (int k = 1; k <= runs; k++) {
      Path dir = config.out().resolve("run-" + k);
      out.accept("bench: run " + k + " of " + runs + " in " + dir);
      BenchRun.run(config.in(dir), out, k - 1);
      reports.add(JSON.readTree(dir.resolve("bench.json").toFile()));
      dirs.add(config.out().relativize(dir).toString());
    }
    ObjectNode combined = combine(reports, dirs);
    Files.createDirectories(config.out());
    JSON.writeValue(bench.toFile(), combined);
    out.accept(BenchMarkdown.spreadTable(combined));
    out.accept("bench: the medians of " + runs + " runs in " + bench);
    return combined;
  }

  /** The reports (whole {@code bench.json} trees) combined; {@code dirs} names each run's folder. */
  public static ObjectNode combine(List<JsonNode> reports, List<String> dirs) {
    if (reports.isEmpty() || reports.size() != dirs.size()) {
      throw new IllegalArgumentException("give one folder per report and at least one report");
    }
    JsonNode first = reports.get(0);
    ObjectNode combined = NODES.objectNode();
    combined.set("provenance", provenance(reports));
    combined.set("machine", first.path("machine").deepCopy());
    combined.set("config", first.path("config").deepCopy());
    ArrayNode runs = combined.putArray("runs");
    for (int i = 0; i < reports.size(); i++) {
      ObjectNode r = runs.addObject();
      r.put("dir", dirs.get(i));
      r.set("provenance", reports.get(i).path("provenance").deepCopy());
    }
    ObjectNode spread = NODES.objectNode();
    List<JsonNode> figures = reports.stream().map(r -> r.path("figures")).toList();
    combined.set("figures", median(figures, "", spread));
    combined.set("spread", spread);
    return combined;
  }

  private static JsonNode provenance(List<JsonNode> reports) {
    ObjectNode p = reports.get(0).path("provenance").isObject()
        ? (ObjectNode) reports.get(0).path("provenance").deepCopy() : NODES.objectNode();
    boolean dirty = false;
    for (JsonNode r : reports) {
      dirty |= r.path("provenance").path("dirty").asBoolean(false);
      if (!r.path("provenance").path("commit").asText("").equals(p.path("commit").asText(""))) {
        throw new IllegalArgumentException("the runs measured different commits: " + p.path("commit").asText() + " and "
            + r.path("provenance").path("commit").asText());
      }
    }
    p.put("dirty", dirty);
    JsonNode last = reports.get(reports.size() - 1).path("provenance").path("finishedAt");
    if (!last.isMissingNode()) {
      p.set("finishedAt", last.deepCopy());
    }
    return p;
  }

  /** The first node's shape with every number the median of the nodes that have one at that place. */
  private static JsonNode median(List<JsonNode> nodes, String path, ObjectNode spread) {
    JsonNode first = nodes.get(0);
    if (first.isObject()) {
      ObjectNode o = NODES.objectNode();
      Iterator<Map.Entry<String, JsonNode>> fields = first.fields();
      while (fields.hasNext()) {
        String name = fields.next().getKey();
        List<JsonNode> children = nodes.stream().map(n -> n.path(name)).filter(n -> sameKind(first.get(name), n)).toList();
        o.set(name, median(children, path + "/" + name, spread));
      }
      return o;
    }
    if (first.isArray()) {
      ArrayNode a = NODES.arrayNode();
      for (int i = 0; i < first.size(); i++) {
        int index = i;
        List<JsonNode> children = nodes.stream().filter(n -> n.isArray() && n.size() == first.size())
            .map(n -> n.get(index)).filter(n -> sameKind(first.get(index), n)).toList();
        a.add(median(children, path + "/" + i, spread));
      }
      return a;
    }
    if (first.isNumber()) {
      double[] values = nodes.stream().filter(JsonNode::isNumber).mapToDouble(JsonNode::asDouble).toArray();
      double median = median(values);
      boolean integral = nodes.stream().allMatch(JsonNode::isIntegralNumber);
      if (!integral && values.length > 1) {
        ArrayNode each = spread.putArray(path);
        Arrays.stream(values).forEach(each::add);
      }
      return integral && median == Math.rint(median) ? NODES.numberNode((long) median) : NODES.numberNode(median);
    }
    return first.deepCopy();
  }

  private static boolean sameKind(JsonNode a, JsonNode b) {
    return a.getNodeType() == b.getNodeType() && (!a.isObject() || a.has("error") == b.has("error"));
  }

  /** The median of {@code values} (the mean of the middle two when there is an even number). */
  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  /** The runs' values of the number at {@code path} of a combined report, or null when it has no spread there. */
  static double[] spread(JsonNode combined, String path) {
    JsonNode s = combined.path("spread").path(path);
    if (!s.isArray() || s.isEmpty()) {
      return null;
    }
    double[] v = new double[s.size()];
    for (int i = 0; i < v.length; i++) {
      v[i] = s.get(i).asDouble();
    }
    return v;
  }

  /** Reads a {@code bench.json}. */
  static JsonNode read(Path file) throws IOException {
    return JSON.readTree(file.toFile());
  }
}
