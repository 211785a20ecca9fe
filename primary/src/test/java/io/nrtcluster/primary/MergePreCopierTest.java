package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.primary.FakeReplica.PreCopyAnswer;
import io.nrtcluster.primary.PreCopyResult.Outcome;
import io.nrtcluster.primary.PreCopyResult.ReplicaOutcome;
import io.nrtcluster.transport.FileMeta;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The merge pre-copy of a real {@link Primary} against hand-made replicas that answer at once, keep
 * copying, or hang. Each test reads the {@link PreCopyResult}: which replica was skipped, and why.
 * Timing is only ever a lower bound or a generous upper bound: nothing here asserts a speed.
 */
@Timeout(90)
class MergePreCopierTest {
  private static final Logger LOG = LoggerFactory.getLogger(MergePreCopierTest.class);
  /** Longest a merge may take in these tests; far above every pre-copy bound they set. */
  private static final Duration MERGE_BOUND = Duration.ofSeconds(45);
  private static final int SEGMENTS = 4;
  private static final int DOCS = 50;

  @TempDir Path dir;

  private final List<AutoCloseable> closeables = new ArrayList<>();
  private final ExecutorService merges = Executors.newSingleThreadExecutor();

  @AfterEach
  void tearDown() throws Exception {
    merges.shutdownNow();
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }

  private Primary primary(Duration timeout, Duration keepAlive) throws IOException {
    Primary p = TestPrimaries.open(TestPrimaries.config(dir).preCopyTimeout(timeout).preCopyKeepAlive(keepAlive).build());
    closeables.add(p);
    TestPrimaries.addSegments(p, SEGMENTS, DOCS);
    return p;
  }

  private FakeReplica joined(Primary p, int nodeId, PreCopyAnswer answer) throws Exception {
    FakeReplica r = FakeReplica.connect(p, nodeId, answer);
    closeables.add(r);
    r.join();
    return r;
  }

  private CompletableFuture<Void> forceMerge(Primary p) {
    return CompletableFuture.runAsync(() -> {
      try {
        p.writer().forceMerge(1);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, merges);
  }

  /** The merged segment is installed: one segment, every document. */
  private static void assertMergedAndInstalled(Primary p) throws IOException {
    p.refresh();
    assertThat(TestPrimaries.segmentsAndDocs(p)).containsExactly(1, SEGMENTS * DOCS);
  }

  @Test
  void theDeadlineEndsAPreCopyThatKeepsGoingAndTheMergeIsInstalledWithoutTheSlowReplica() throws Exception {
    // keepAlive == timeout, and the slow replica reports progress far more often: only the deadline can end it.
    Duration timeout = Duration.ofSeconds(2);
    Primary p = primary(timeout, timeout);
    FakeReplica slow = joined(p, 11, PreCopyAnswer.KEEP_ALIVE);
    FakeReplica fast = joined(p, 12, PreCopyAnswer.DONE);

    long started = System.nanoTime();
    forceMerge(p).get(MERGE_BOUND.toSeconds(), TimeUnit.SECONDS);
    long tookMillis = (System.nanoTime() - started) / 1_000_000;
    LOG.info("merge with a slow replica took {} ms (pre-copy deadline {})", tookMillis, timeout);

    PreCopyResult result = p.lastPreCopy();
    assertThat(result).isNotNull();
    assertThat(result.outcomes()).containsExactlyInAnyOrder(
        new ReplicaOutcome(slow.nodeId, Outcome.DEADLINE), new ReplicaOutcome(fast.nodeId, Outcome.COPIED));
    assertThat(result.replicas()).isEqualTo(2);
    assertThat(result.succeeded()).isEqualTo(1);
    assertThat(result.nanos()).as("it waited for the deadline").isGreaterThanOrEqualTo(timeout.toNanos());
    assertThat(result.files()).isPositive();
    assertThat(p.preCopiesRunning()).isZero();
    assertThat(slow.awaitPreCopy().files()).hasSize(result.files());
    assertMergedAndInstalled(p);
  }

  @Test
  void aReplicaSilentForTheKeepAliveIsSkippedLongBeforeTheDeadline() throws Exception {
    Primary p = primary(Duration.ofMinutes(10), Duration.ofMillis(500));
    FakeReplica silent = joined(p, 21, PreCopyAnswer.SILENT);
    FakeReplica fast = joined(p, 22, PreCopyAnswer.DONE);

    // Were the silent replica not skipped, the merge would wait for the 10-minute deadline.
    forceMerge(p).get(MERGE_BOUND.toSeconds(), TimeUnit.SECONDS);

    PreCopyResult result = p.lastPreCopy();
    assertThat(result.outcomes()).containsExactlyInAnyOrder(
        new ReplicaOutcome(silent.nodeId, Outcome.NO_PROGRESS), new ReplicaOutcome(fast.nodeId, Outcome.COPIED));
    assertThat(result.nanos()).as("it waited for the keep-alive").isGreaterThanOrEqualTo(Duration.ofMillis(500).toNanos());
    assertThat(silent.awaitPreCopy()).isNotNull();
    assertMergedAndInstalled(p);
  }

  @Test
  void aReplicaThatJoinsDuringAPreCopyIsIncludedAndMayFetchItsFilesOnlyWhileItRuns() throws Exception {
    // No deadline or keep-alive ends this pre-copy: the replicas do, when the test says so.
    Primary p = primary(Duration.ofMinutes(10), Duration.ofMinutes(10));
    FakeReplica first = joined(p, 31, PreCopyAnswer.KEEP_ALIVE);
    CompletableFuture<Void> merge = forceMerge(p);
    Message.PreCopyMerge firstRequest = first.awaitPreCopy();
    assertThat(p.preCopiesRunning()).isEqualTo(1);

    FakeReplica late = joined(p, 32, PreCopyAnswer.KEEP_ALIVE);
    Message.PreCopyMerge lateRequest = late.awaitPreCopy();
    assertThat(lateRequest.preCopyId()).as("the running pre-copy, not a new one").isEqualTo(firstRequest.preCopyId());
    assertThat(lateRequest.files()).isEqualTo(firstRequest.files());

    // While it runs, its files are served under its id, byte for byte.
    Map.Entry<String, FileMeta> file = lateRequest.files().entrySet().iterator().next();
    byte[] bytes = late.fetch(Message.SourceKind.MERGE_PRECOPY, lateRequest.preCopyId(), file.getKey());
    assertThat(bytes).hasSize((int) file.getValue().length())
        .isEqualTo(Files.readAllBytes(dir.resolve("index").resolve(file.getKey())));
    assertThat(merge).as("the merge waits for both replicas").isNotDone();

    late.finish(lateRequest, true);
    first.finish(firstRequest, true);
    merge.get(MERGE_BOUND.toSeconds(), TimeUnit.SECONDS);

    PreCopyResult result = p.lastPreCopy();
    assertThat(result.outcomes()).as("in the order they were included").containsExactly(
        new ReplicaOutcome(first.nodeId, Outcome.COPIED), new ReplicaOutcome(late.nodeId, Outcome.COPIED));
    assertThat(result.succeeded()).isEqualTo(2);
    // Once it ended, the same file under the same id is refused.
    assertThatThrownBy(() -> late.fetch(Message.SourceKind.MERGE_PRECOPY, lateRequest.preCopyId(), file.getKey()))
        .isInstanceOf(FileNotServableException.class);
    assertMergedAndInstalled(p);
    assertThat(first.pendingPreCopies() + late.pendingPreCopies()).as("one pre-copy, sent once to each").isZero();
  }

  @Test
  void aReplicaThatFailsOrDisconnectsIsReportedSoAndDoesNotHoldTheMerge() throws Exception {
    Primary p = primary(Duration.ofMinutes(10), Duration.ofMinutes(10));
    FakeReplica failing = joined(p, 41, PreCopyAnswer.KEEP_ALIVE);
    FakeReplica leaving = joined(p, 42, PreCopyAnswer.KEEP_ALIVE);
    CompletableFuture<Void> merge = forceMerge(p);
    Message.PreCopyMerge request = failing.awaitPreCopy();
    leaving.awaitPreCopy();

    failing.finish(request, false);
    leaving.close();
    merge.get(MERGE_BOUND.toSeconds(), TimeUnit.SECONDS);

    assertThat(p.lastPreCopy().outcomes()).containsExactlyInAnyOrder(
        new ReplicaOutcome(failing.nodeId, Outcome.FAILED), new ReplicaOutcome(leaving.nodeId, Outcome.DISCONNECTED));
    assertThat(p.lastPreCopy().succeeded()).isZero();
    assertMergedAndInstalled(p);
  }

  @Test
  void closingThePrimaryEndsARunningPreCopy() throws Exception {
    Primary p = primary(Duration.ofMinutes(10), Duration.ofMinutes(10));
    FakeReplica slow = joined(p, 51, PreCopyAnswer.KEEP_ALIVE);
    CompletableFuture<Void> merge = forceMerge(p);
    slow.awaitPreCopy();

    p.close();
    // The merge thread is released (the rolled-back writer may fail the merge: either way it ends).
    await().atMost(MERGE_BOUND).until(merge::isDone);
    assertThat(p.preCopiesRunning()).isZero();
    // Closing abandons the pre-copy and drops the replica's connection: whichever the pre-copy sees
    // first ends it, never a copy that counts as done.
    assertThat(p.lastPreCopy().outcomes()).singleElement().satisfies(o -> {
      assertThat(o.replicaId()).isEqualTo(slow.nodeId);
      assertThat(o.outcome()).isIn(Outcome.ABANDONED, Outcome.DISCONNECTED);
    });
  }
}
