package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The host's store settings: defaults, and a bad value names its field. */
@Timeout(30)
class HostStoreConfigTest {
  private static HostStoreConfig.Builder valid() {
    return HostStoreConfig.builder().store(ObjectStoreConfig.builder().bucket("my-bucket").build());
  }

  @Test
  void verificationDefaultsToHourlyAt32MiBPerSecondAndZeroTurnsItOff() {
    HostStoreConfig c = valid().build();
    assertThat(c.verifyInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(c.verifyBytesPerSecond()).isEqualTo(32L << 20);
    HostStoreConfig off = valid().verifyInterval(Duration.ZERO).verifyBytesPerSecond(0).build();
    assertThat(off.verifyInterval()).isZero();
    assertThat(off.verifyBytesPerSecond()).isZero();
    assertThat(valid().verifyInterval(Duration.ofDays(7)).verifyBytesPerSecond(BackupVerifier.MIN_BYTES_PER_SECOND).build()
        .verifyInterval()).isEqualTo(Duration.ofDays(7));
  }

  @Test
  void badVerificationSettingsNameTheirField() {
    assertBad(valid().verifyInterval(null), "verifyInterval");
    assertBad(valid().verifyInterval(Duration.ofSeconds(-1)), "verifyInterval");
    assertBad(valid().verifyInterval(Duration.ofDays(7).plusSeconds(1)), "verifyInterval");
    assertBad(valid().verifyBytesPerSecond(-1), "verifyBytesPerSecond");
    assertBad(valid().verifyBytesPerSecond(BackupVerifier.MIN_BYTES_PER_SECOND - 1), "verifyBytesPerSecond");
  }

  private static void assertBad(HostStoreConfig.Builder b, String field) {
    assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith(field);
  }
}
