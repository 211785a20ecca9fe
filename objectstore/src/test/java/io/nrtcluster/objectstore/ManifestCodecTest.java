package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ManifestCodecTest {
  private static final String KEY = "c/i/manifests/0000000000000000007-0000000000000000003";

  static Manifest sample() {
    TreeMap<String, FileEntry> files = new TreeMap<>();
    files.put("_0.cfs", new FileEntry("_0.cfs", 12345, 0xCAFEBABEL));
    files.put("_0.si", new FileEntry("_0.si", 321, 0x12345678L));
    return new Manifest(7, 3, 2, new byte[] {1, 2, 3, 4, 5}, files, Map.of("replay", "42"), 1_700_000_000_000L);
  }

  @Test
  void roundTrips() throws Exception {
    Manifest m = sample();
    assertThat(ManifestCodec.decode(KEY, ManifestCodec.encode(m))).isEqualTo(m);
  }

  @Test
  void everyFlippedBitIsRefusedNamingTheObject() throws Exception {
    byte[] good = ManifestCodec.encode(sample());
    long seed = Long.getLong("nrt.test.seed", new Random().nextLong());
    Random random = new Random(seed);
    for (int i = 0; i < 2000; i++) {
      byte[] bad = good.clone();
      int pos = random.nextInt(bad.length);
      bad[pos] ^= (byte) (1 << random.nextInt(8));
      assertThatThrownBy(() -> ManifestCodec.decode(KEY, bad))
          .as("seed %d, byte %d", seed, pos)
          .isInstanceOfSatisfying(CorruptBackupException.class, e -> {
            assertThat(e.objectKey()).isEqualTo(KEY);
            assertThat(e.getMessage()).contains(KEY);
          });
    }
  }

  @Test
  void truncatedExtendedOrGarbageIsRefused() throws Exception {
    byte[] good = ManifestCodec.encode(sample());
    for (int len = 0; len < good.length; len++) {
      byte[] cut = Arrays.copyOf(good, len);
      assertThatThrownBy(() -> ManifestCodec.decode(KEY, cut)).as("cut at %d", len).isInstanceOf(CorruptBackupException.class);
    }
    byte[] longer = Arrays.copyOf(good, good.length + 1);
    assertThatThrownBy(() -> ManifestCodec.decode(KEY, longer)).isInstanceOf(CorruptBackupException.class);
    assertThatThrownBy(() -> ManifestCodec.decode(KEY, "{\"not\":\"a manifest\"}".getBytes()))
        .isInstanceOf(CorruptBackupException.class);
  }
}
