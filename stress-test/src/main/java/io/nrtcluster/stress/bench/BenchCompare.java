package io.nrtcluster.stress.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Two runs' {@code bench.json} side by side ({@code bin/nrt bench --compare BASE.json}): every ratio
 * a figure reports (fields named {@code ratio} or {@code ...Ratio}, targets left out) in the new run
 * against the same field of the base run, and whether it moved beyond the tolerance in the
 * figure's bad direction. Lower is better for every figure except those that measure a throughput
 * (the search while copying, the copy): for their throughput ratios higher is better, for their CPU
 * ratios lower.
 *
 * <p>When the base run combined several runs ({@link BenchRuns}), a ratio is worse only when the new
 * value (the new run's median, if it has several) lies beyond the base's worst run by more than the
 * tolerance, and better only beyond its best run: the base's spread is the noise a change must clear.
 * A base with single values has no spread, and the tolerance then stands in for it. A value that
 * moved less is reported as the same. A field only one run has is listed as new or gone.
 */
public final class BenchCompare {
  /** The tolerance beyond the spread when the base has one ({@link #defaultTolerance}). */
  public static final double TOLERANCE_BEYOND_SPREAD = 0.10;
  /** The tolerance when the base has single values: single runs of one cell moved that much. */
  public static final double TOLERANCE_SINGLE_RUN = 0.25;

  /** Figures whose ratios are better when higher (throughputs). */
  private static final Set<String> HIGHER_IS_BETTER = Set.of("searchWhileCopying", "copyThroughput");

  /** How a ratio moved. */
  public enum Verdict {
    SAME,
    BETTER,
    WORSE,
    NEW,
    GONE
  }

  /**
   * One ratio of both runs; NaN where a run lacks it. {@code baseMin} and {@code baseMax} are the
   * base's lowest and highest run (both {@code base} when it had one).
   */
  public record Line(String path, double base, double baseMin, double baseMax, double now, Verdict verdict) {
    /** New over base, or NaN. */
    public double change() {
      return base == 0 || Double.isNaN(base) || Double.isNaN(now) ? Double.NaN : now / base;
    }
  }

  private BenchCompare() {}

  /** {@link #TOLERANCE_BEYOND_SPREAD} when {@code base} combined several runs, else {@link #TOLERANCE_SINGLE_RUN}. */
  public static double defaultTolerance(JsonNode base) {
    return base.path("spread").isObject() && base.path("spread").size() > 0 ? TOLERANCE_BEYOND_SPREAD : TOLERANCE_SINGLE_RUN;
  }

  /** The ratios of {@code base} and {@code now} (whole {@code bench.json} trees), in the new run's order, then those gone. */
  public static List<Line> compare(JsonNode base, JsonNode now, double tolerance) {
    if (!(tolerance >= 0 && tolerance < 10)) {
      throw new IllegalArgumentException("tolerance must be in [0, 10), got " + tolerance);
    }
    Map<String, Double> before = new LinkedHashMap<>();
    Map<String, Double> after = new LinkedHashMap<>();
    ratios(base.path("figures"), "", before);
    ratios(now.path("figures"), "", after);
    List<Line> lines = new ArrayList<>();
    for (Map.Entry<String, Double> e : after.entrySet()) {
      Double b = before.get(e.getKey());
      double n = e.getValue();
      if (b == null) {
        lines.add(new Line(e.getKey(), Double.NaN, Double.NaN, Double.NaN, n, Verdict.NEW));
        continue;
      }
      double[] runs = BenchRuns.spread(base, e.getKey());
      double min = b;
      double max = b;
      if (runs != null) {
        for (double r : runs) {
          min = Math.min(min, r);
          max = Math.max(max, r);
        }
      }
      lines.add(new Line(e.getKey(), b, min, max, n, verdict(e.getKey(), min, max, n, tolerance)));
    }
    for (Map.Entry<String, Double> e : before.entrySet()) {
      if (!after.containsKey(e.getKey())) {
        lines.add(new Line(e.getKey(), e.getValue(), e.getValue(), e.getValue(), Double.NaN, Verdict.GONE));
      }
    }
    return lines;
  }

  /** True when some ratio got worse beyond the tolerance. */
  public static boolean regressed(List<Line> lines) {
    return lines.stream().anyMatch(l -> l.verdict() == Verdict.WORSE);
  }

  /** The comparison as text: which commits, then one line per ratio, regressions marked. */
  public static String render(JsonNode base, JsonNode now, List<Line> lines, double tolerance) {
    StringBuilder sb = new StringBuilder();
    int runs = base.path("runs").isArray() ? base.path("runs").size() : 1;
    sb.append(String.format(Locale.ROOT, "compared with %s (commit %s, %s), tolerance %.0f %%%s: ratio, base, base runs, "
        + "new, new/base%n", base.path("provenance").path("startedAt").asText("an undated run"),
        base.path("provenance").path("commit").asText("unknown"), runs == 1 ? "one run" : "median of " + runs + " runs",
        tolerance * 100, runs == 1 ? "" : " beyond the base's lowest and highest run"));
    for (Line l : lines) {
      String range = l.baseMin() == l.baseMax() ? "-" : num(l.baseMin()) + "-" + num(l.baseMax());
      sb.append(String.format(Locale.ROOT, "  %-60s %9s %13s %9s %7s  %s%n", l.path(), num(l.base()), range, num(l.now()),
          Double.isNaN(l.change()) ? "-" : String.format(Locale.ROOT, "%.2f", l.change()),
          l.verdict() == Verdict.WORSE ? "REGRESSION" : l.verdict().name().toLowerCase(Locale.ROOT)));
    }
    long worse = lines.stream().filter(l -> l.verdict() == Verdict.WORSE).count();
    sb.append(worse == 0 ? "no ratio got worse beyond the tolerance" : worse + " ratio(s) got worse beyond the tolerance");
    return sb.toString();
  }

  /** Throughput ratios of the throughput figures; a CPU ratio (CPU per GiB against a baseline's) is better lower everywhere. */
  static boolean higherIsBetter(String path) {
    String name = path.substring(path.lastIndexOf('/') + 1);
    return HIGHER_IS_BETTER.contains(path.split("/", 3)[1]) && !name.toLowerCase(Locale.ROOT).contains("cpu");
  }

  /** Where {@code now} lies against the base's runs {@code [min, max]} widened by the tolerance. */
  private static Verdict verdict(String path, double min, double max, double now, double tolerance) {
    if (max == 0 && min == 0) {
      return now == 0 ? Verdict.SAME : Verdict.NEW;
    }
    boolean above = now > max * (1 + tolerance);
    boolean below = now < min * (1 - tolerance);
    if (!above && !below) {
      return Verdict.SAME;
    }
    return above == higherIsBetter(path) ? Verdict.BETTER : Verdict.WORSE;
  }

  private static void ratios(JsonNode node, String path, Map<String, Double> out) {
    if (node.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = node.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> f = it.next();
        String name = f.getKey();
        JsonNode v = f.getValue();
        if (v.isNumber() && (name.equals("ratio") || name.endsWith("Ratio")) && !name.startsWith("target")) {
          out.put(path + "/" + name, v.asDouble());
        } else if (v.isContainerNode()) {
          ratios(v, path + "/" + name, out);
        }
      }
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        ratios(node.get(i), path + "/" + i, out);
      }
    }
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.3f", v);
  }
}
