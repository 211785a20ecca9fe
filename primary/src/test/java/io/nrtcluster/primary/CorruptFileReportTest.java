package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.primary.FakeReplica.PreCopyAnswer;
import io.nrtcluster.transport.FileMeta;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.CorruptIndexException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's report that a file keeps failing its checksum, answered by a real {@link Primary} over
 * the real transport: the primary reads its own copy and says whether it is corrupt; a corrupt one is
 * a tragic event of its writer; a name it would never serve gets a typed refusal before any disk read.
 */
@Timeout(60)
class CorruptFileReportTest {
  @TempDir Path dir;

  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Primary primary() throws IOException {
    Primary p = TestPrimaries.open(TestPrimaries.config(dir).build());
    closeables.add(p);
    return p;
  }

  private FakeReplica replica(Primary p) throws Exception {
    FakeReplica r = FakeReplica.connect(p, 7, PreCopyAnswer.DONE);
    closeables.add(r);
    return r;
  }

  private static Message report(FakeReplica r, long gen, String name, FileMeta meta) throws Exception {
    try {
      return r.connection().request(id -> new Message.ReportCorruptFile(id, gen, name, meta.length(), meta.checksum(), 3))
          .get(20, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      throw (Exception) e.getCause();
    }
  }

  private static Map.Entry<String, FileMeta> largest(Message.CopyStateReply s) {
    return s.files().entrySet().stream().filter(e -> !e.getKey().startsWith("segments"))
        .max(Comparator.comparingLong(e -> e.getValue().length())).orElseThrow();
  }

  /** Flips one bit in the middle of a file on disk, as bit rot would. */
  static void flipMiddleByte(Path file) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
      long at = f.length() / 2;
      f.seek(at);
      int b = f.read();
      f.seek(at);
      f.write(b ^ 0x10);
    }
  }

  @Test
  void anIntactFileIsSaidToBeIntactAndTheWriterGoesOn() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 2, 200);
    FakeReplica r = replica(p);
    Map.Entry<String, FileMeta> file = largest(r.copyState());

    Message answer = report(r, p.primaryGen(), file.getKey(), file.getValue());

    assertThat(answer).isInstanceOf(Message.FileVerdict.class);
    assertThat(((Message.FileVerdict) answer).verdict()).isEqualTo(Message.Verdict.INTACT);
    assertThat(p.writer().getTragicException()).isNull();
    TestPrimaries.addSegments(p, 1, 10);
  }

  @Test
  void aFileCorruptOnThePrimarysDiskIsATragicEventOfItsWriter() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 2, 200);
    FakeReplica r = replica(p);
    Map.Entry<String, FileMeta> file = largest(r.copyState());
    flipMiddleByte(dir.resolve("index").resolve(file.getKey()));

    Message answer = report(r, p.primaryGen(), file.getKey(), file.getValue());

    assertThat(answer).isInstanceOf(Message.FileVerdict.class);
    assertThat(((Message.FileVerdict) answer).verdict()).isEqualTo(Message.Verdict.CORRUPT);
    assertThat(((Message.FileVerdict) answer).detail()).contains(file.getKey());
    assertThat(p.writer().getTragicException()).isInstanceOf(CorruptIndexException.class);
    // The verdict stands for every later report, with no second tragic event.
    Message again = report(r, p.primaryGen(), file.getKey(), file.getValue());
    assertThat(((Message.FileVerdict) again).verdict()).isEqualTo(Message.Verdict.CORRUPT);
  }

  @Test
  void namesItWouldNeverServeAreRefusedWithATypedError() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 20);
    FakeReplica r = replica(p);
    Map.Entry<String, FileMeta> file = largest(r.copyState());
    FileMeta meta = file.getValue();

    for (String bad : List.of("../../etc/passwd", "/etc/passwd", "_0.cfs/../../x", "write.lock", "_99.cfs")) {
      assertThatThrownBy(() -> report(r, p.primaryGen(), bad, meta)).as(bad)
          .isInstanceOf(FileNotServableException.class)
          .satisfies(e -> assertThat(((NrtClusterException) e).code()).isEqualTo(ErrorCode.FILE_NOT_SERVABLE));
    }
    FileMeta otherChecksum = new FileMeta(meta.header(), meta.footer(), meta.length(), meta.checksum() + 1);
    assertThatThrownBy(() -> report(r, p.primaryGen(), file.getKey(), otherChecksum))
        .isInstanceOf(FileNotServableException.class).hasMessageContaining("not " + meta.length() + " bytes");
    assertThatThrownBy(() -> report(r, p.primaryGen() + 1, file.getKey(), meta))
        .isInstanceOf(FileNotServableException.class).hasMessageContaining("generation");
    assertThat(p.writer().getTragicException()).isNull();
  }
}
