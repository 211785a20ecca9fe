package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The member record and its application metadata, without ZooKeeper. */
class MemberInfoTest {
  private static final MemberInfo BASE = new MemberInfo(3, "10.0.0.3:7000", Role.REPLICA, 4, 120, 110, true, 1_700_000_000_000L);

  @Test
  void aRecordRoundTripsWithAndWithoutMetadata() throws Exception {
    assertThat(MemberInfo.decode(BASE.encode())).isEqualTo(BASE);
    assertThat(BASE.metadata()).isEmpty();
    MemberInfo with = BASE.withMetadata(Map.of("http", "http://10.0.0.3:8080", "zone", "eu-1", "nodeId", "not the node id"));
    MemberInfo decoded = MemberInfo.decode(with.encode());
    assertThat(decoded).isEqualTo(with);
    assertThat(decoded.nodeId()).as("a metadata key never shadows a field").isEqualTo(3);
    assertThat(decoded.withRole(Role.PRIMARY).metadata()).isEqualTo(with.metadata());
    assertThat(MemberInfo.rank(with, BASE)).as("metadata plays no part in the ranking").isZero();
  }

  @Test
  void candidacyAndTheLastStepDownRoundTripAndOldRecordsAreCandidates() throws Exception {
    assertThat(BASE.candidate()).isTrue();
    assertThat(BASE.lastStepDown()).isNull();
    MemberInfo gaveUp = BASE.withStanding(false, new StepDown(StepDownReason.CORRUPT_INDEX, "checksum failed: _0.cfs", 42));
    assertThat(MemberInfo.decode(gaveUp.encode())).isEqualTo(gaveUp);
    assertThat(MemberInfo.decode(gaveUp.withRole(Role.PRIMARY).encode()).lastStepDown()).isEqualTo(gaveUp.lastStepDown());
    assertThat(new StepDown(StepDownReason.IO_ERROR, "x".repeat(1000), 1).message()).hasSize(StepDown.MAX_MESSAGE);
    String newer = new String(gaveUp.encode(), StandardCharsets.UTF_8).replace("CORRUPT_INDEX", "SOMETHING_NEWER");
    assertThat(MemberInfo.decode(newer.getBytes(StandardCharsets.UTF_8)).lastStepDown().reason())
        .as("a reason this node does not know").isEqualTo(StepDownReason.FATAL_ERROR);
  }

  @Test
  void aRecordWrittenBeforeMetadataExistedDecodesWithNone() throws Exception {
    String old = "nodeId=3\naddress=10.0.0.3\\:7000\nrole=REPLICA\nprimaryGen=4\nsearchingVersion=120\n"
        + "commitVersion=110\ncopying=true\nlastCopyMillis=1700000000000\n";
    assertThat(MemberInfo.decode(old.getBytes(StandardCharsets.UTF_8))).isEqualTo(BASE);
  }

  @Test
  void consecutiveCopyFailuresRoundTripAndAreKeptByTheWithers() throws Exception {
    MemberInfo failing = new MemberInfo(3, "10.0.0.3:7000", Role.REPLICA, 4, 120, 110, true, 1_700_000_000_000L,
        Map.of("http", "http://a:1"), 17);
    assertThat(MemberInfo.decode(failing.encode())).isEqualTo(failing);
    assertThat(failing.withRole(Role.PRIMARY).consecutiveCopyFailures()).isEqualTo(17);
    assertThat(failing.withMetadata(Map.of()).consecutiveCopyFailures()).isEqualTo(17);
    assertThat(BASE.consecutiveCopyFailures()).as("a record written before it existed decodes with 0").isZero();
    assertThat(failing.withIntegrity(MemberIntegrity.CLEAN).consecutiveCopyFailures()).isEqualTo(17);
  }

  @Test
  void integrityRoundTripsAndAnOldRecordWithoutItIsEligible() throws Exception {
    assertThat(BASE.integrity()).isEqualTo(MemberIntegrity.CLEAN);
    assertThat(BASE.eligible()).isTrue();
    MemberInfo corrupt = BASE.withMetadata(Map.of("http", "x")).withIntegrity(new MemberIntegrity(true, List.of("_0.cfs", "_1.fdt"), 1, 1, 3));
    assertThat(corrupt.eligible()).as("naming a corrupt file is never eligible").isFalse();
    MemberInfo decoded = MemberInfo.decode(corrupt.encode());
    assertThat(decoded).isEqualTo(corrupt);
    assertThat(decoded.withRole(Role.PRIMARY).integrity()).isEqualTo(corrupt.integrity());
    MemberInfo verifying = BASE.withIntegrity(new MemberIntegrity(false, List.of(), 0, 0, 0));
    assertThat(MemberInfo.decode(verifying.encode()).eligible()).isFalse();
    // The record written before integrity existed (see aRecordWrittenBeforeMetadataExistedDecodesWithNone).
    String old = "nodeId=3\naddress=a\\:1\nrole=REPLICA\nprimaryGen=4\nsearchingVersion=1\ncommitVersion=1\ncopying=false\nlastCopyMillis=0\n";
    assertThat(MemberInfo.decode(old.getBytes(StandardCharsets.UTF_8)).integrity()).isEqualTo(MemberIntegrity.CLEAN);
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      many.add("_" + i + ".cfs");
    }
    assertThat(new MemberIntegrity(true, many, 0, 0, 0).corruptFiles()).hasSize(MemberIntegrity.MAX_NAMES);
    assertThatThrownBy(() -> new MemberIntegrity(true, List.of("a,b"), 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("corruptFiles");
  }

  @Test
  void metadataIsUnmodifiableAndACopy() {
    Map<String, String> source = new HashMap<>(Map.of("http", "http://a:1"));
    MemberInfo m = BASE.withMetadata(source);
    source.put("http", "changed");
    assertThat(m.metadata()).containsExactly(Map.entry("http", "http://a:1"));
    assertThatThrownBy(() -> m.metadata().put("x", "y")).isInstanceOf(UnsupportedOperationException.class);
    assertThat(BASE.withMetadata(null).metadata()).isEmpty();
  }

  @Test
  void metadataOutOfBoundsIsRefusedNamingTheEntry() {
    Map<String, String> many = new HashMap<>();
    for (int i = 0; i <= MemberMetadata.MAX_ENTRIES; i++) {
      many.put("k" + i, "v");
    }
    assertThatThrownBy(() -> BASE.withMetadata(many)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 16 entries");
    assertThatThrownBy(() -> BASE.withMetadata(Map.of("bad key", "v"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'bad key'");
    assertThatThrownBy(() -> BASE.withMetadata(Map.of("k".repeat(65), "v"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keys must be");
    assertThatThrownBy(() -> BASE.withMetadata(Map.of("http", "x".repeat(1025)))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("metadata.http");
    assertThatThrownBy(() -> BASE.withMetadata(Map.of("http", "a\nb"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control characters");
    assertThatThrownBy(() -> BASE.withMetadata(Map.of("http", "a\uD800b"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("surrogates");
    Map<String, String> big = new HashMap<>();
    for (int i = 0; i < 5; i++) {
      big.put("k" + i, "v".repeat(1000));
    }
    assertThatThrownBy(() -> BASE.withMetadata(big)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("total at most 4096");
    assertThat(BASE.withMetadata(Map.of("emoji", "\uD83D\uDE00 ok")).metadata()).containsKey("emoji");
  }

  @Test
  void aRecordWithMetadataOutOfBoundsIsAProtocolError() {
    String bad = "nodeId=3\naddress=a\\:1\nrole=REPLICA\nprimaryGen=4\nsearchingVersion=1\ncommitVersion=1\ncopying=false\n"
        + "lastCopyMillis=0\nmeta.http=" + "x".repeat(2000) + "\n";
    assertThatThrownBy(() -> MemberInfo.decode(bad.getBytes(StandardCharsets.UTF_8))).isInstanceOf(ProtocolException.class);
  }

  @Test
  void randomMetadataWithinBoundsRoundTrips() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int round = 0; round < 200; round++) {
      Map<String, String> m = new HashMap<>();
      int entries = random.nextInt(MemberMetadata.MAX_ENTRIES + 1);
      for (int i = 0; i < entries; i++) {
        StringBuilder value = new StringBuilder();
        for (int c = random.nextInt(200); c > 0; c--) {
          char ch = (char) (0x20 + random.nextInt(0xD000 - 0x20));
          value.append(Character.isISOControl(ch) ? 'x' : ch);
        }
        m.put("k" + i + "." + random.nextInt(1000), value.toString());
      }
      MemberInfo with = BASE.withMetadata(m);
      assertThat(MemberInfo.decode(with.encode())).as("seed %d", seed).isEqualTo(with);
    }
  }
}
