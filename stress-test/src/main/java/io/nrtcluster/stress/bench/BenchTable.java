package io.nrtcluster.stress.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The console table of a benchmark run: one row per figure, measured against its baseline. */
final class BenchTable {
  private final List<String[]> table = new ArrayList<>();

  void row(String figure, double measured, double baseline, String unit, String target) {
    table.add(new String[] {figure, String.format(Locale.ROOT, "%.1f %s", measured, unit),
        String.format(Locale.ROOT, "%.1f %s", baseline, unit), String.format(Locale.ROOT, "%.3f", Dist.ratio(measured, baseline)),
        target});
  }

  /** A row whose cells are written as given (counts, placements, or a ratio that is no quotient). */
  void text(String figure, String measured, String baseline, String ratio, String target) {
    table.add(new String[] {figure, measured, baseline, ratio, target});
  }

  String render() {
    String[] head = {"figure", "measured", "baseline", "ratio", "target"};
    int[] w = new int[head.length];
    List<String[]> rows = new ArrayList<>();
    rows.add(head);
    rows.addAll(table);
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        w[i] = Math.max(w[i], r[i].length());
      }
    }
    StringBuilder sb = new StringBuilder();
    for (String[] r : rows) {
      for (int i = 0; i < r.length; i++) {
        sb.append(String.format(Locale.ROOT, i == 0 ? "%-" + w[i] + "s" : "  %" + w[i] + "s", r[i]));
      }
      sb.append('\n');
    }
    return sb.toString().stripTrailing();
  }
}
