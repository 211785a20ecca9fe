package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoreFollowerConfigTest {
  @Test
  void defaultsAndBounds() {
    StoreFollowerConfig c = StoreFollowerConfig.builder().build();
    assertThat(c.pollInterval()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.maxParallelDownloads()).isEqualTo(4);
    assertThat(StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(10)).maxParallelDownloads(64).build())
        .isNotNull();
  }

  @Test
  void aBadSettingIsNamed() {
    assertThatThrownBy(() -> StoreFollowerConfig.builder().pollInterval(null).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("pollInterval");
    assertThatThrownBy(() -> StoreFollowerConfig.builder().pollInterval(Duration.ofMillis(9)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("pollInterval");
    assertThatThrownBy(() -> StoreFollowerConfig.builder().pollInterval(Duration.ofHours(2)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("pollInterval");
    assertThatThrownBy(() -> StoreFollowerConfig.builder().maxParallelDownloads(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxParallelDownloads");
    assertThatThrownBy(() -> StoreFollowerConfig.builder().maxParallelDownloads(65).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("maxParallelDownloads");
  }
}
