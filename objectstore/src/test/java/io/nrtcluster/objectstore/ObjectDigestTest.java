package io.nrtcluster.objectstore;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The streamed check of one object agrees with Lucene's own, however its bytes arrive, and starts over per attempt. */
@Timeout(60)
class ObjectDigestTest {
  @TempDir Path tmp;

  @Test
  void anyChunkingGivesLucenesChecksumAndFooterAndANewAttemptStartsOver() throws Exception {
    long seed = Long.getLong("nrt.test.seed", new Random().nextLong());
    Random random = new Random(seed);
    try (TestIndex index = new TestIndex(tmp.resolve("index"), false)) {
      index.add(200, random);
      TestIndex.Commit c = index.commit(1);
      for (FileEntry f : c.point().files().values()) {
        byte[] bytes = Files.readAllBytes(tmp.resolve("index").resolve(f.name()));
        long lucene;
        try (IndexInput in = index.dir.openInput(f.name(), IOContext.READONCE)) {
          lucene = CodecUtil.checksumEntireFile(in);
        }
        CRC32 before = new CRC32();
        before.update(bytes, 0, bytes.length - 8);
        ObjectDigest digest = new ObjectDigest(new Pace(0));
        feed(digest.begin(), new byte[1 + random.nextInt(100)], random); // an attempt that broke off
        feed(digest.begin(), bytes, random);
        String what = "seed " + seed + ", " + f.name();
        assertThat(digest.count()).as(what).isEqualTo(bytes.length);
        assertThat(digest.footerWellFormed()).as(what).isTrue();
        assertThat(digest.crcBeforeChecksum()).as(what).isEqualTo(lucene).isEqualTo(before.getValue()).isEqualTo(f.checksum());
        assertThat(digest.footerChecksum()).as(what).isEqualTo(lucene);
      }
    }
  }

  @Test
  void fewerBytesThanAFooterAreNoFooter() throws Exception {
    ObjectDigest digest = new ObjectDigest(new Pace(0));
    digest.begin().write(new byte[15]);
    assertThat(digest.footerWellFormed()).isFalse();
  }

  /** Writes {@code bytes} in chunks of random sizes, single bytes among them. */
  private static void feed(OutputStream out, byte[] bytes, Random random) throws Exception {
    int pos = 0;
    while (pos < bytes.length) {
      int n = Math.min(bytes.length - pos, switch (random.nextInt(4)) {
        case 0 -> 1;
        case 1 -> 1 + random.nextInt(20);
        default -> 1 + random.nextInt(70_000);
      });
      if (n == 1 && random.nextBoolean()) {
        out.write(bytes[pos]);
      } else {
        out.write(bytes, pos, n);
      }
      pos += n;
    }
  }
}
