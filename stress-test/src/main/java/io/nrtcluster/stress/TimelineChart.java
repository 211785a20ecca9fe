package io.nrtcluster.stress;

import io.nrtcluster.election.Role;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.renderer.xy.XYStepRenderer;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The run at a glance (JFreeChart, PNG): on top each node's searching version over time; below, one
 * lane per node coloured by role (primary, replica, paused, down); at the bottom one row per fault
 * kind, each fault a bar over the time it held (a thin one when instant). Every fault is also an
 * unlabelled vertical line over the plots above, and every partition (red) or slow link (purple) a
 * shaded band. No fault carries a text label: a long run's dozens of faults would stack them into an
 * unreadable band, while rows stay readable at any count (the report lists each fault's target).
 */
final class TimelineChart {
  /** The colour of a node's lane at one sample; the legend lists them in this order. */
  enum Lane {
    PRIMARY(new Color(0xD62728)),
    REPLICA(new Color(0x1F77B4)),
    /** Paused by the harness, or up but not answering (as good as paused to its peers). */
    PAUSED(new Color(0xFF7F0E)),
    DOWN(new Color(0x7F7F7F)),
    /** Joining, fenced, closing. */
    OTHER(new Color(0xBCBD22));

    final Color color;

    Lane(Color color) {
      this.color = color;
    }

    static Lane of(Timeline.Sample s) {
      if (s.role() == Role.PRIMARY) {
        return PRIMARY;
      } else if (s.role() == Role.REPLICA) {
        return REPLICA;
      } else if (s.role() != null) {
        return OTHER;
      }
      return switch (s.process()) {
        case UP, PAUSED -> PAUSED;
        case DOWN -> DOWN;
      };
    }
  }

  /** Distinct colours for neighbouring fault rows (the rows are labelled; colour only separates them). */
  private static final Color[] FAULT_COLORS = {
    new Color(0x8C564B), new Color(0xE377C2), new Color(0x17BECF), new Color(0x9467BD), new Color(0x2CA02C),
    new Color(0xD62728), new Color(0xFF7F0E), new Color(0x1F77B4), new Color(0x7F7F7F), new Color(0xBCBD22)
  };

  private TimelineChart() {}

  static void write(Timeline timeline, String title, Path png) throws IOException {
    System.setProperty("java.awt.headless", "true");
    ChartUtils.saveChartAsPNG(png.toFile(), chart(timeline, title), 1600, 900);
  }

  /** The chart: versions, role lanes and, when there were faults, the fault rows, on one time axis. */
  static JFreeChart chart(Timeline timeline, String title) {
    List<Timeline.Sample> samples = timeline.samples();
    TreeSet<Integer> nodes = new TreeSet<>();
    samples.forEach(s -> nodes.add(s.nodeId()));

    XYSeriesCollection versions = new XYSeriesCollection();
    Map<Integer, XYSeries> byNode = new LinkedHashMap<>();
    for (int n : nodes) {
      XYSeries series = new XYSeries("N" + n, false, true);
      byNode.put(n, series);
      versions.addSeries(series);
    }
    XYSeriesCollection roles = new XYSeriesCollection();
    Map<Lane, XYSeries> byLane = new EnumMap<>(Lane.class);
    for (Lane lane : Lane.values()) {
      XYSeries series = new XYSeries(lane.name().toLowerCase(Locale.ROOT), false, true);
      byLane.put(lane, series);
      roles.addSeries(series);
    }
    for (Timeline.Sample s : samples) {
      double t = s.atMillis() / 1000.0;
      byNode.get(s.nodeId()).add(t, s.version() < 0 ? null : (Number) s.version());
      byLane.get(Lane.of(s)).add(t, s.nodeId());
    }

    NumberAxis versionAxis = new NumberAxis("searching version");
    versionAxis.setAutoRangeIncludesZero(false);
    XYStepRenderer stepRenderer = new XYStepRenderer();
    stepRenderer.setDefaultStroke(new BasicStroke(1.5f));
    XYPlot versionPlot = new XYPlot(versions, null, versionAxis, stepRenderer);

    NumberAxis laneAxis = new NumberAxis("node");
    laneAxis.setTickUnit(new NumberTickUnit(1));
    laneAxis.setRange(0.5, nodes.isEmpty() ? 1.5 : nodes.last() + 0.5);
    XYLineAndShapeRenderer laneRenderer = new XYLineAndShapeRenderer(false, true);
    for (Lane lane : Lane.values()) {
      laneRenderer.setSeriesPaint(lane.ordinal(), lane.color);
      laneRenderer.setSeriesShape(lane.ordinal(), new Rectangle2D.Double(-2, -6, 4, 12));
    }
    XYPlot lanePlot = new XYPlot(roles, null, laneAxis, laneRenderer);

    List<Timeline.Event> events = timeline.events();
    for (Timeline.Event e : events) {
      double t = e.atMillis() / 1000.0;
      if (e.untilMillis() >= 0) {
        // A partition or slow link: shaded over the time it held, on both plots.
        Color shade = e.kind().isPartition() ? new Color(0xD6, 0x27, 0x28, 40) : new Color(0x94, 0x67, 0xBD, 40);
        versionPlot.addDomainMarker(new IntervalMarker(t, e.untilMillis() / 1000.0, shade));
        lanePlot.addDomainMarker(new IntervalMarker(t, e.untilMillis() / 1000.0, shade));
      }
      Color line = new Color(0x40, 0x40, 0x40, 90);
      versionPlot.addDomainMarker(new ValueMarker(t, line, new BasicStroke(1f, BasicStroke.CAP_BUTT,
          BasicStroke.JOIN_MITER, 1f, new float[] {4f, 3f}, 0f)));
      lanePlot.addDomainMarker(new ValueMarker(t, line, new BasicStroke(1f)));
    }

    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(new NumberAxis("seconds since start"));
    plot.setGap(8);
    plot.add(versionPlot, 3);
    plot.add(lanePlot, 1);
    if (!events.isEmpty()) {
      plot.add(faultPlot(samples, events), 1);
    }
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 14), plot, true);
    chart.setBackgroundPaint(Color.WHITE);
    return chart;
  }

  /** One row per fault kind that occurred, in the kinds' order; each fault a bar from its start to its end. */
  private static XYPlot faultPlot(List<Timeline.Sample> samples, List<Timeline.Event> events) {
    List<FaultKind> kinds = events.stream().map(Timeline.Event::kind).distinct().sorted().toList();
    double end = 1;
    for (Timeline.Sample s : samples) {
      end = Math.max(end, s.atMillis() / 1000.0);
    }
    for (Timeline.Event e : events) {
      end = Math.max(end, Math.max(e.atMillis(), e.untilMillis()) / 1000.0);
    }
    // An instant fault still gets a bar a reader can see, whatever the run's length.
    double instant = end / 400;
    XYIntervalSeriesCollection rows = new XYIntervalSeriesCollection();
    Map<FaultKind, XYIntervalSeries> byKind = new EnumMap<>(FaultKind.class);
    for (FaultKind kind : kinds) {
      XYIntervalSeries series = new XYIntervalSeries(kind.key());
      byKind.put(kind, series);
      rows.addSeries(series);
    }
    for (Timeline.Event e : events) {
      double from = e.atMillis() / 1000.0;
      double to = Math.max(from + instant, e.untilMillis() >= 0 ? e.untilMillis() / 1000.0 : from);
      int row = kinds.indexOf(e.kind());
      byKind.get(e.kind()).add(from, from, to, row, row - 0.35, row + 0.35);
    }
    SymbolAxis kindAxis = new SymbolAxis("fault", kinds.stream().map(FaultKind::key).toArray(String[]::new));
    kindAxis.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 10));
    kindAxis.setGridBandsVisible(false);
    XYBarRenderer bars = new XYBarRenderer();
    bars.setUseYInterval(true);
    bars.setShadowVisible(false);
    bars.setBarPainter(new StandardXYBarPainter());
    bars.setDefaultSeriesVisibleInLegend(false);
    for (int i = 0; i < kinds.size(); i++) {
      bars.setSeriesPaint(i, FAULT_COLORS[i % FAULT_COLORS.length]);
    }
    return new XYPlot(rows, null, kindAxis, bars);
  }
}
