package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The committed seed corpus of the fuzz tests is what {@link FuzzSeedCorpus} makes from the real
 * encoder today, and it holds a valid frame of every message type, so regression mode really
 * exercises every branch of the decoder. With {@code -Dnrt.fuzz.writeSeeds=DIR} it (re)writes the
 * corpus under DIR first.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FuzzSeedCorpusTest {
  @Test
  void committedCorpusMatchesTheEncoder() throws IOException {
    String target = System.getProperty("nrt.fuzz.writeSeeds", "");
    if (!target.isBlank()) {
      FuzzSeedCorpus.write(Path.of(target));
    }
    for (Map.Entry<String, Map<String, byte[]>> dir : FuzzSeedCorpus.all().entrySet()) {
      for (Map.Entry<String, byte[]> f : dir.getValue().entrySet()) {
        String resource = "/" + dir.getKey() + "/" + f.getKey();
        try (InputStream in = FuzzSeedCorpusTest.class.getResourceAsStream(resource)) {
          assertThat(in).as("%s is committed (rewrite the corpus, see FuzzSeedCorpus)", resource).isNotNull();
          assertThat(in.readAllBytes()).as("%s is what the encoder makes today", resource).isEqualTo(f.getValue());
        }
      }
    }
  }

  @Test
  void corpusHoldsAValidFrameOfEveryMessageType() throws Exception {
    Set<MessageType> seen = EnumSet.noneOf(MessageType.class);
    for (byte[] body : FuzzSeedCorpus.frameBodySeeds().values()) {
      try {
        Message m = WireTestUtil.decode(body);
        seen.add(MessageType.of(m));
        if (m instanceof FileChunk c) {
          c.release();
        }
      } catch (io.nrtcluster.common.ProtocolException refused) {
        // an edge case
      }
    }
    assertThat(seen).containsExactlyInAnyOrder(MessageType.values());
  }
}
