package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.objectstore.HostStoreConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code nrt node}'s verification options become the host's store settings; sizes read the way they print. */
@Timeout(30)
class NodeBackupOptionsTest {
  @TempDir Path tmp;

  @Test
  void verificationIsHourlyAt32MiBPerSecondUnlessToldOtherwise() throws Exception {
    HostStoreConfig defaults = parse();
    assertThat(defaults.verifyInterval()).isEqualTo(Duration.ofHours(1));
    assertThat(defaults.verifyBytesPerSecond()).isEqualTo(32L << 20);
    HostStoreConfig set = parse("--verify-interval", "30m", "--verify-rate", "512KiB");
    assertThat(set.verifyInterval()).isEqualTo(Duration.ofMinutes(30));
    assertThat(set.verifyBytesPerSecond()).isEqualTo(512L << 10);
    HostStoreConfig off = parse("--verify-interval", "0s", "--verify-rate", "0");
    assertThat(off.verifyInterval()).isZero();
    assertThat(off.verifyBytesPerSecond()).isZero();
    assertThatThrownBy(() -> parse("--verify-rate", "1KiB")).hasMessageStartingWith("--verify-rate");
    assertThatThrownBy(() -> parse("--verify-interval", "169h")).hasMessageStartingWith("--verify-interval");
  }

  @Test
  void sizesAreReadInBinaryUnitsAnyCase() {
    assertThat(ByteSizeConverter.parse("4096")).isEqualTo(4096);
    assertThat(ByteSizeConverter.parse("0")).isZero();
    assertThat(ByteSizeConverter.parse("32MiB")).isEqualTo(32L << 20);
    assertThat(ByteSizeConverter.parse("32m")).isEqualTo(32L << 20);
    assertThat(ByteSizeConverter.parse("32 MB")).isEqualTo(32L << 20);
    assertThat(ByteSizeConverter.parse("512kib")).isEqualTo(512L << 10);
    assertThat(ByteSizeConverter.parse("1.5GiB")).isEqualTo(3L << 29);
    assertThat(ByteSizeConverter.parse("10B")).isEqualTo(10);
    for (String bad : List.of("", "fast", "-1", "1.5", "32 MiB/s", "1TiB", "99999999999GiB")) {
      assertThatThrownBy(() -> ByteSizeConverter.parse(bad)).as(bad)
          .isInstanceOf(CommandLine.TypeConversionException.class).hasMessageContaining("not a size");
    }
  }

  private HostStoreConfig parse(String... extra) throws Exception {
    List<String> args = new ArrayList<>(List.of("node", "--zk", "127.0.0.1:1", "--cluster", "t", "--index", "docs",
        "--data", tmp.toString(), "--port", "0", "--backup-bucket", "my-bucket"));
    args.addAll(List.of(extra));
    CommandLine.ParseResult parsed = Main.commandLine().parseArgs(args.toArray(String[]::new));
    NodeCommand node = (NodeCommand) parsed.subcommand().commandSpec().userObject();
    return node.backup.config();
  }
}
