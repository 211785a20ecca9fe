package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder's bounds on the bad-file settings, each refusal naming its field. */
class ReplicaConfigTest {
  private static ReplicaConfig.Builder base() {
    return ReplicaConfig.builder().cluster("c").index("i").dataDir(Path.of("unused"));
  }

  @Test
  void badFileSettingsHaveDefaultsAndSurviveToBuilder() {
    ReplicaConfig c = base().build();
    assertThat(c.corruptFileReportAfter()).isEqualTo(3);
    assertThat(c.badFileBackoffMin()).isEqualTo(Duration.ofSeconds(5));
    assertThat(c.badFileBackoffMax()).isEqualTo(Duration.ofMinutes(2));
    ReplicaConfig custom = base().corruptFileReportAfter(7).badFileBackoffMin(Duration.ofMillis(10))
        .badFileBackoffMax(Duration.ofMillis(20)).build();
    assertThat(custom.toBuilder().build()).isEqualTo(custom);
  }

  @Test
  void outOfBoundsBadFileSettingsAreRefusedNamingTheField() {
    assertThatThrownBy(() -> base().corruptFileReportAfter(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("corruptFileReportAfter");
    assertThatThrownBy(() -> base().corruptFileReportAfter(1001).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("corruptFileReportAfter");
    assertThatThrownBy(() -> base().badFileBackoffMin(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("badFileBackoffMin");
    assertThatThrownBy(() -> base().badFileBackoffMax(null).build())
        .isInstanceOf(RuntimeException.class).hasMessageContaining("badFileBackoffMax");
    assertThatThrownBy(() -> base().badFileBackoffMin(Duration.ofSeconds(10)).badFileBackoffMax(Duration.ofSeconds(1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("badFileBackoffMax must be >= badFileBackoffMin");
  }
}
