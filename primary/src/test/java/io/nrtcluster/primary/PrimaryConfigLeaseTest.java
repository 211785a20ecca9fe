package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The copy-state lease settings: defaults, and each bad value refused naming its field. */
@Timeout(30)
class PrimaryConfigLeaseTest {
  private static PrimaryConfig.Builder base() {
    return PrimaryConfig.builder().cluster("c").index("i").dataDir(Path.of("unused"));
  }

  @Test
  void defaultsLeaseForFifteenSecondsWithinBounds() {
    PrimaryConfig c = base().build();
    assertThat(c.copyStateLease()).isEqualTo(Duration.ofSeconds(15));
    assertThat(c.leasesCopyStates()).isTrue();
    assertThat(c.maxCopyStateLeases()).isEqualTo(8);
    assertThat(c.maxLeasedBytes()).isEqualTo(4L << 30);
    assertThat(base().copyStateLease(Duration.ZERO).build().leasesCopyStates()).as("zero turns leases off").isFalse();
  }

  @Test
  void badValuesAreRefusedNamingTheField() {
    assertThatThrownBy(() -> base().copyStateLease(Duration.ofMillis(-1)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("copyStateLease");
    assertThatThrownBy(() -> base().copyStateLease(Duration.ofMinutes(11)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("copyStateLease");
    assertThatThrownBy(() -> base().copyStateLease(null).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("copyStateLease");
    assertThatThrownBy(() -> base().maxCopyStateLeases(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxCopyStateLeases");
    assertThatThrownBy(() -> base().maxLeasedBytes(-1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxLeasedBytes");
  }
}
