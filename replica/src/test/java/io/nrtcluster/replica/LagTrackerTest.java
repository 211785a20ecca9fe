package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class LagTrackerTest {
  @Test
  void lagIsWhatWasAnnouncedAndIsNotSearchedYet() {
    LagTracker lag = new LagTracker();
    assertThat(lag.versionsBehind(5)).isZero();
    assertThat(lag.nanosBehind(5)).isZero();
    assertThat(lag.newestAnnounced()).isEqualTo(-1);

    lag.announced(10, 5);
    lag.announced(12, 5);
    assertThat(lag.newestAnnounced()).isEqualTo(12);
    assertThat(lag.versionsBehind(5)).isEqualTo(7);
    assertThat(lag.nanosBehind(5)).isNotNegative();

    assertThat(lag.searched(10)).as("10 was pending").isNotNegative();
    assertThat(lag.versionsBehind(10)).isEqualTo(2);
    assertThat(lag.searched(12)).isNotNegative();
    assertThat(lag.versionsBehind(12)).isZero();
    assertThat(lag.nanosBehind(12)).isZero();
    assertThat(lag.searched(12)).as("nothing pending any more").isEqualTo(-1);
  }

  @Test
  void anAnnouncementOfWhatIsSearchedAlreadyIsNoLag() {
    LagTracker lag = new LagTracker();
    lag.announced(7, 7);
    assertThat(lag.versionsBehind(7)).isZero();
    assertThat(lag.nanosBehind(7)).isZero();
    assertThat(lag.searched(7)).isEqualTo(-1);
  }

  @Test
  void aNewerInstallCoversEveryOlderAnnouncement() {
    LagTracker lag = new LagTracker();
    for (long v = 1; v <= 1000; v++) {
      lag.announced(v, 0);
    }
    assertThat(lag.versionsBehind(0)).isEqualTo(1000);
    assertThat(lag.searched(1000)).isNotNegative();
    assertThat(lag.versionsBehind(1000)).isZero();
    assertThat(lag.nanosBehind(999)).as("nothing newer than 999 is pending any more").isZero();
  }

  @Test
  void trimmingKeepsTheOldestPendingPoint() {
    LagTracker lag = new LagTracker();
    lag.announced(1, 0);
    long oldestAge = lag.nanosBehind(0);
    for (long v = 2; v <= 2000; v++) {
      lag.announced(v, 0);
    }
    // Still measured from version 1, the first announced: at least as old as when first read.
    assertThat(lag.nanosBehind(0)).isGreaterThanOrEqualTo(oldestAge);
    assertThat(lag.searched(1)).as("version 1 is still pending").isNotNegative();
  }
}
