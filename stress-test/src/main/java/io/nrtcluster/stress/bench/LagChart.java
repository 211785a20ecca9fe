package io.nrtcluster.stress.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.List;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** The lag distributions of one grid cell as cumulative curves (JFreeChart, PNG, log-scale milliseconds). */
final class LagChart {
  private static final String[] NAMES = {"single-node NRT refresh (baseline)", "replica visibility, NRT replication",
      "replica visibility, commit-based replication"};
  private static final Color[] COLORS = {new Color(0x2CA02C), new Color(0x1F77B4), new Color(0xD62728)};

  private LagChart() {}

  static void write(String cell, List<List<Long>> samples, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    XYSeriesCollection data = new XYSeriesCollection();
    List<Color> colors = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      List<Long> s = samples.get(i);
      if (s.isEmpty()) {
        continue;
      }
      long[] sorted = s.stream().mapToLong(Long::longValue).sorted().toArray();
      XYSeries series = new XYSeries(NAMES[i] + " (n=" + sorted.length + ")", true, true);
      for (int k = 0; k < sorted.length; k++) {
        series.add(Math.max(0.01, sorted[k] / 1e6), (k + 1.0) / sorted.length);
      }
      data.addSeries(series);
      colors.add(COLORS[i]);
    }
    LogAxis x = new LogAxis("milliseconds (log scale)");
    x.setSmallestValue(0.01);
    x.setNumberFormatOverride(new DecimalFormat("0.##"));
    NumberAxis y = new NumberAxis("fraction of refreshes at or below");
    y.setRange(0, 1.0);
    XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, false);
    for (int i = 0; i < colors.size(); i++) {
      renderer.setSeriesPaint(i, colors.get(i));
      renderer.setSeriesStroke(i, new BasicStroke(2f));
    }
    XYPlot plot = new XYPlot(data, x, y, renderer);
    JFreeChart chart = new JFreeChart("Visibility lag, " + cell, new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    ChartUtils.saveChartAsPNG(png.toFile(), chart, 1200, 700);
  }
}
