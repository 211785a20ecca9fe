package io.nrtcluster.stress;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.election.Role;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The chart's lanes come from the typed samples: the node's role when it answered, else its process state. */
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
}
