package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.Marker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.ui.Layer;
import org.jfree.data.xy.XYDataset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's lanes come from the typed samples: the node's role when it answered, else its process
 * state; faults are rows per kind, never text labels that a long run would stack.
 */
class TimelineChartTest {
  @TempDir Path dir;

  @Test
  void eachSampleFallsInTheLaneOfItsRoleOrProcessState() throws Exception {
    Timeline t = new Timeline();
    t.sample(1, Role.PRIMARY, 5, 1);
    t.sample(2, Role.REPLICA, 5, 1);
    t.sample(3, Role.FENCED, 4, 1);
    t.silent(1, NodeProcess.State.PAUSED);
    t.silent(2, NodeProcess.State.UP); // up but not answering
    t.silent(3, NodeProcess.State.DOWN);
    t.fault(FaultKind.PRIMARY_KILL, "N1", "test");

    assertThat(t.samples()).extracting(TimelineChart.Lane::of).containsExactly(TimelineChart.Lane.PRIMARY,
        TimelineChart.Lane.REPLICA, TimelineChart.Lane.OTHER, TimelineChart.Lane.PAUSED, TimelineChart.Lane.PAUSED,
        TimelineChart.Lane.DOWN);

    Path png = dir.resolve("timeline.png");
    TimelineChart.write(t, "test", png);
    assertThat(Files.size(png)).isPositive();
  }

  @Test
  void manyFaultsAreRowsPerKindNotStackedLabels() throws Exception {
    Timeline t = new Timeline();
    FaultKind[] kinds = {FaultKind.PRIMARY_KILL, FaultKind.REPLICA_KILL, FaultKind.PAUSE, FaultKind.WIRE,
        FaultKind.PARTITION_HALVES, FaultKind.SLOW_LINK, FaultKind.DISK_BIT_FLIP};
    for (int i = 0; i < 65; i++) {
      FaultKind kind = kinds[i % kinds.length];
      t.sample(1 + i % 3, Role.REPLICA, i, 1);
      if (kind.isPartition()) {
        t.healed(t.lasting(kind, "N" + (1 + i % 3), "test"));
      } else {
        t.fault(kind, "N" + (1 + i % 3), "test");
      }
    }

    JFreeChart chart = TimelineChart.chart(t, "65 faults");
    List<XYPlot> plots = ((CombinedDomainXYPlot) chart.getXYPlot()).getSubplots();
    assertThat(plots).as("versions, role lanes, fault rows").hasSize(3);
    for (XYPlot plot : plots) {
      Collection<?> markers = plot.getDomainMarkers(Layer.FOREGROUND);
      if (markers != null) {
        assertThat(markers).as("fault markers carry no text labels")
            .allSatisfy(m -> assertThat(((Marker) m).getLabel()).isNull());
      }
    }
    XYDataset rows = plots.get(2).getDataset();
    assertThat(rows.getSeriesCount()).as("one row per fault kind").isEqualTo(kinds.length);
    int bars = 0;
    for (int s = 0; s < rows.getSeriesCount(); s++) {
      bars += rows.getItemCount(s);
    }
    assertThat(bars).as("one bar per fault").isEqualTo(65);
    TimelineChart.write(t, "65 faults", dir.resolve("many.png"));
    assertThat(Files.size(dir.resolve("many.png"))).isPositive();
  }
}
