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
 * (the search while copying, the copy): for them higher is better.
 *
 * <p>The tolerance stands in for a figure's spread as long as runs record a single value; a value
 * that moved less is reported as the same. A field only one run has is listed as new or gone.
 */
public final class BenchCompare {
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

  /** One ratio of both runs; NaN where a run lacks it. */
  public record Line(String path, double base, double now, Verdict verdict) {
    /** New over base, or NaN. */
    public double change() {
      return base == 0 || Double.isNaN(base) || Double.isNaN(now) ? Double.NaN : now / base;
    }
  }

  private BenchCompare() {}

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
        lines.add(new Line(e.getKey(), Double.NaN, n, Verdict.NEW));
        continue;
      }
      lines.add(new Line(e.getKey(), b, n, verdict(e.getKey(), b, n, tolerance)));
    }
    for (Map.Entry<String, Double> e : before.entrySet()) {
      if (!after.containsKey(e.getKey())) {
        lines.add(new Line(e.getKey(), e.getValue(), Double.NaN, Verdict.GONE));
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
    sb.append(String.format(Locale.ROOT, "compared with %s (commit %s), tolerance %.0f %%: ratio, base, new, new/base%n",
        base.path("provenance").path("startedAt").asText("an undated run"), base.path("provenance").path("commit").asText("unknown"),
        tolerance * 100));
    for (Line l : lines) {
      sb.append(String.format(Locale.ROOT, "  %-60s %9s %9s %7s  %s%n", l.path(), num(l.base()), num(l.now()),
          Double.isNaN(l.change()) ? "-" : String.format(Locale.ROOT, "%.2f", l.change()),
          l.verdict() == Verdict.WORSE ? "REGRESSION" : l.verdict().name().toLowerCase(Locale.ROOT)));
    }
    long worse = lines.stream().filter(l -> l.verdict() == Verdict.WORSE).count();
    sb.append(worse == 0 ? "no ratio got worse beyond the tolerance" : worse + " ratio(s) got worse beyond the tolerance");
    return sb.toString();
  }

  private static Verdict verdict(String path, double base, double now, double tolerance) {
    if (base == 0) {
      return now == 0 ? Verdict.SAME : Verdict.NEW;
    }
    double change = now / base;
    if (Math.abs(change - 1) <= tolerance) {
      return Verdict.SAME;
    }
    boolean higherBetter = HIGHER_IS_BETTER.contains(path.split("/", 3)[1]);
    return (change > 1) == higherBetter ? Verdict.BETTER : Verdict.WORSE;
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
