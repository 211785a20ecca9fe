package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ReplayPositions;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A primary hands each gated commit (and, if asked, each published NRT point) to its point listener, files held. */
@Timeout(60)
class PointListenerTest {
  @TempDir Path dir;

  private static final class Recorder implements PointListener {
    final boolean refreshes;
    final List<HeldPoint> points = new CopyOnWriteArrayList<>();

    Recorder(boolean refreshes) {
      this.refreshes = refreshes;
    }

    @Override
    public boolean everyRefresh() {
      return refreshes;
    }

    @Override
    public void pointReady(HeldPoint point) {
      points.add(point);
    }
  }

  @Test
  void commitsOnlyByDefaultAndTheFilesStayUntilThePointIsClosed() throws Exception {
    try (Primary p = TestPrimaries.open(TestPrimaries.config(dir.resolve("p")).build())) {
      Recorder r = new Recorder(false);
      p.setPointListener(r);
      TestPrimaries.addSegments(p, 3, 50);
      assertThat(r.points).isEmpty();
      long v = p.refresh("offset-150");
      p.commit();
      assertThat(r.points).hasSize(1);
      HeldPoint held = r.points.get(0);
      assertThat(held.commit()).isTrue();
      assertThat(held.state().version()).isEqualTo(v);
      assertThat(held.state().primaryGen()).isEqualTo(p.primaryGen());
      assertThat(held.userData()).containsEntry(ReplayPositions.KEY, "offset-150");

      // Merged away and committed over: the held point's files are still there.
      p.writer().forceMerge(1);
      p.refresh();
      p.commit();
      for (String name : held.state().files().keySet()) {
        try (IndexInput in = held.directory().openInput(name, IOContext.READONCE)) {
          assertThat(in.length()).isEqualTo(held.state().files().get(name).length());
        }
      }
      held.close();
      held.close(); // idempotent
      r.points.forEach(HeldPoint::close);
    }
  }

  @Test
  void everyPublishedPointWhenAskedButNeverOneThatFailedTheGate() throws Exception {
    try (Primary p = TestPrimaries.open(TestPrimaries.config(dir.resolve("p")).build())) {
      Recorder r = new Recorder(true);
      p.setPointListener(r);
      TestPrimaries.addSegments(p, 2, 10);
      assertThat(r.points).hasSize(2).allSatisfy(h -> assertThat(h.commit()).isFalse());
      AtomicBoolean refuse = new AtomicBoolean(true);
      p.setPublishGate(version -> {
        if (refuse.get()) {
          throw new IOException("not published (simulated gate)");
        }
      });
      assertThatThrownBy(() -> TestPrimaries.addSegments(p, 1, 10)).isInstanceOf(IOException.class);
      assertThat(r.points).hasSize(2);
      refuse.set(false);
      long v = p.refresh();
      assertThat(r.points).hasSize(3);
      assertThat(r.points.get(2).state().version()).isEqualTo(v);
      r.points.forEach(HeldPoint::close);
    }
  }
}
