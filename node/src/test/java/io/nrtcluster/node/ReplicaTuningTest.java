package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.replica.ReplicaConfig;
import io.nrtcluster.replica.ScrubConfig;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReplicaTuningTest {
  @Test
  void defaultsAreTheReplicasAndBadValuesNameTheirField() {
    ReplicaConfig plain = ReplicaConfig.builder().cluster("c").index("i").dataDir(Path.of("d")).build();
    ReplicaConfig tuned = ReplicaTuning.defaults().applyTo(ReplicaConfig.builder().cluster("c").index("i")
        .dataDir(Path.of("d"))).build();
    assertThat(tuned).isEqualTo(plain);
    assertThat(HostConfig.builder().cluster("c").dataDir(Path.of("d")).zooKeeper("z").build().replicaTuning())
        .isEqualTo(ReplicaTuning.defaults());

    assertThatThrownBy(() -> ReplicaTuning.builder().corruptFileReportAfter(0).build()).hasMessageContaining("corruptFileReportAfter");
    assertThatThrownBy(() -> ReplicaTuning.builder().badFileBackoff(Duration.ZERO, Duration.ofSeconds(1)).build())
        .hasMessageContaining("badFileBackoffMin");
    assertThatThrownBy(() -> ReplicaTuning.builder().badFileBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)).build())
        .hasMessageContaining("badFileBackoffMax");
    assertThatThrownBy(() -> ReplicaTuning.builder().copyResumeWindow(Duration.ofHours(1)).build())
        .hasMessageContaining("copyResumeWindow");
    assertThatThrownBy(() -> ReplicaTuning.builder().scrub(null).build()).hasMessageContaining("scrub");
    assertThatThrownBy(() -> ReplicaTuning.builder().preCopyBytesPerSecond(-1).build())
        .hasMessageContaining("preCopyBytesPerSecond");
  }

  @Test
  void aTuningReachesTheReplicasConfiguration() {
    ReplicaTuning t = ReplicaTuning.builder().scrub(ScrubConfig.off()).corruptFileReportAfter(7)
        .badFileBackoff(Duration.ofMillis(200), Duration.ofSeconds(5)).copyResumeWindow(Duration.ZERO).preCopyBytesPerSecond(64L << 20).build();
    ReplicaConfig c = t.applyTo(ReplicaConfig.builder().cluster("c").index("i").dataDir(Path.of("d"))).build();
    assertThat(c.scrub()).isEqualTo(ScrubConfig.off());
    assertThat(c.corruptFileReportAfter()).isEqualTo(7);
    assertThat(c.badFileBackoffMin()).isEqualTo(Duration.ofMillis(200));
    assertThat(c.badFileBackoffMax()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.copyResumeWindow()).isZero();
    assertThat(c.preCopyBytesPerSecond()).isEqualTo(64L << 20);
  }
}
