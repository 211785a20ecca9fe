package io.nrtcluster.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.common.FileNotServableException;
import io.nrtcluster.common.NotPublishedException;
import io.nrtcluster.common.NrtClusterException;
import io.nrtcluster.primary.FakeReplica.PreCopyAnswer;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a real {@link Primary} serves over the real transport: a file only while a copy-state that
 * names it is held by someone (or a running merge pre-copy names it, see {@link MergePreCopierTest}),
 * with a typed refusal otherwise; and every copy-state is released by its replica or its disconnect.
 */
@Timeout(60)
class PrimaryEndpointTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

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

  private FakeReplica replica(Primary p, int nodeId) throws Exception {
    FakeReplica r = FakeReplica.connect(p, nodeId, PreCopyAnswer.DONE);
    closeables.add(r);
    return r;
  }

  private byte[] onDisk(String name) throws IOException {
    return Files.readAllBytes(dir.resolve("index").resolve(name));
  }

  @Test
  void aFileIsServedOnlyUnderACopyStateThatNamesItAndOnlyUntilThatIsReleased() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 20);
    FakeReplica r = replica(p, 7);

    Message.CopyStateReply first = r.copyState();
    assertThat(first.version()).isEqualTo(p.version());
    assertThat(first.files()).isNotEmpty();
    String oldFile = first.files().keySet().iterator().next();
    assertThat(r.fetch(Message.SourceKind.COPY_STATE, first.copyStateId(), oldFile)).isEqualTo(onDisk(oldFile));

    TestPrimaries.addSegments(p, 1, 20);
    Message.CopyStateReply second = r.copyState();
    Set<String> newFiles = new HashSet<>(second.files().keySet());
    newFiles.removeAll(first.files().keySet());
    assertThat(newFiles).as("the second point has a segment the first has not").isNotEmpty();
    String newFile = newFiles.iterator().next();
    assertThat(p.copyStatesHeld()).isEqualTo(2);

    // A file that exists, but not in the copy-state asked under: refused, typed.
    assertThatThrownBy(() -> r.fetch(Message.SourceKind.COPY_STATE, first.copyStateId(), newFile))
        .isInstanceOf(FileNotServableException.class).hasMessageContaining(newFile);
    assertThat(r.fetch(Message.SourceKind.COPY_STATE, second.copyStateId(), newFile)).isEqualTo(onDisk(newFile));
    // No merge pre-copy runs: nothing is served under one.
    assertThatThrownBy(() -> r.fetch(Message.SourceKind.MERGE_PRECOPY, 1, oldFile))
        .isInstanceOf(FileNotServableException.class);

    r.release(first.copyStateId());
    assertThat(p.copyStatesHeld()).isEqualTo(1);
    assertThatThrownBy(() -> r.fetch(Message.SourceKind.COPY_STATE, first.copyStateId(), oldFile))
        .as("the released copy-state serves nothing any more")
        .isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_COPY_STATE));
    if (second.files().containsKey(oldFile)) {
      assertThat(r.fetch(Message.SourceKind.COPY_STATE, second.copyStateId(), oldFile)).isEqualTo(onDisk(oldFile));
    }

    r.release(second.copyStateId());
    r.release(second.copyStateId()); // a second release is harmless
    assertThat(p.copyStatesHeld()).isZero();
    assertThatThrownBy(() -> r.fetch(Message.SourceKind.COPY_STATE, second.copyStateId(), newFile))
        .isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_COPY_STATE));
  }

  @Test
  void aCopyStateIsReleasedWhenItsHolderDisconnectsAndThenServesNobody() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 20);
    FakeReplica holder = replica(p, 7);
    FakeReplica other = replica(p, 8);
    Message.CopyStateReply state = holder.copyState();
    String file = state.files().keySet().iterator().next();
    holder.close();
    await().atMost(WAIT).until(() -> p.copyStatesHeld() == 0);
    assertThatThrownBy(() -> other.fetch(Message.SourceKind.COPY_STATE, state.copyStateId(), file))
        .isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_COPY_STATE));
  }

  @Test
  void oneConnectionHoldsAtMostTheLimitAndADisconnectReleasesAll() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 5);
    FakeReplica greedy = replica(p, 7);
    for (int i = 0; i < CopyStateRegistry.MAX_HELD_PER_CONNECTION; i++) {
      greedy.copyState();
    }
    assertThatThrownBy(greedy::copyState).isInstanceOf(ExecutionException.class)
        .cause().isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.TOO_MANY_REQUESTS));
    assertThat(p.copyStatesHeld()).isEqualTo(CopyStateRegistry.MAX_HELD_PER_CONNECTION);

    FakeReplica modest = replica(p, 8);
    Message.CopyStateReply mine = modest.copyState();
    assertThat(p.copyStatesHeld()).as("the limit is per connection").isEqualTo(CopyStateRegistry.MAX_HELD_PER_CONNECTION + 1);

    greedy.close();
    await().atMost(WAIT).until(() -> p.copyStatesHeld() == 1);
    modest.release(mine.copyStateId());
    assertThat(p.copyStatesHeld()).isZero();
  }

  @Test
  void aVersionWhosePublicationFailedIsNeverHandedOut() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 5);
    long published = p.version();
    p.setPublishGate(version -> {
      throw new IOException("lost the epoch");
    });
    assertThatThrownBy(() -> TestPrimaries.addSegments(p, 1, 5)).isInstanceOf(IOException.class);
    assertThat(p.version()).isEqualTo(published);

    FakeReplica r = replica(p, 7);
    // "Not published", not "not the primary": the replica retries the same primary.
    assertThatThrownBy(r::copyState).isInstanceOf(ExecutionException.class).cause().isInstanceOf(NotPublishedException.class);
    assertThat(p.copyStatesHeld()).as("the refused copy-state was released").isZero();
  }

  @Test
  void closingThePrimaryReleasesWhatReplicasStillHold() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 5);
    FakeReplica r = replica(p, 7);
    r.copyState();
    r.copyState();
    assertThat(p.copyStatesHeld()).isEqualTo(2);
    p.close(); // waits closeTimeout for the copies, then releases them
    assertThat(p.copyStatesHeld()).isZero();
    await().atMost(WAIT).until(() -> !r.connection().isOpen());
  }

  @Test
  void closeWaitsForTheCopyOfAReplicaItHearsFromButNotForOneSilentForPeerSilence() throws Exception {
    Primary p = TestPrimaries.open(TestPrimaries.config(dir).closeTimeout(Duration.ofSeconds(30))
        .peerSilence(Duration.ofMillis(300)).build());
    closeables.add(p);
    TestPrimaries.addSegments(p, 1, 5);
    // Holds a copy-state and then says nothing, its connection open: a replica cut off mid-copy.
    FakeReplica silent = replica(p, 7);
    silent.copyState();
    // Pings as a replica's heartbeat does and releases its copy-state a second later: a copy under way.
    FakeReplica live = replica(p, 8);
    Message.CopyStateReply held = live.copyState();
    ScheduledExecutorService heartbeat = Executors.newSingleThreadScheduledExecutor();
    closeables.add(heartbeat::shutdownNow);
    heartbeat.scheduleAtFixedRate(() -> live.connection().request(Message.Ping::new), 0, 50, TimeUnit.MILLISECONDS);
    AtomicLong releaseSentAt = new AtomicLong();
    heartbeat.schedule(() -> {
      releaseSentAt.set(System.nanoTime());
      live.release(held.copyStateId());
      return null;
    }, 1, TimeUnit.SECONDS);

    long start = System.nanoTime();
    p.close();
    long closedAt = System.nanoTime();
    assertThat(releaseSentAt.get()).as("the close waited for the copy of the replica it hears from")
        .isPositive().isLessThan(closedAt);
    assertThat(Duration.ofNanos(closedAt - start)).as("not for the silent one's, until its 30 s closeTimeout")
        .isLessThan(Duration.ofSeconds(10));
    assertThat(p.copyStatesHeld()).isZero();
  }

  @Test
  void pointsBringTheirCopyStateOnlyOncePublishedAndUnusedOnesStayBounded() throws Exception {
    Primary p = primary();
    TestPrimaries.addSegments(p, 1, 20);
    FakeReplica r = replica(p, 7);
    r.join();
    for (int i = 0; i < 6; i++) {
      TestPrimaries.addSegments(p, 1, 5);
    }
    long published = p.version();
    await().atMost(WAIT).until(() -> !r.pushed.isEmpty() && r.pushed.get(r.pushed.size() - 1).version() == published);
    assertThat(p.copyStatesHeld()).as("only the newest unused pushed copy-states are kept")
        .isEqualTo(CopyStateRegistry.MAX_UNUSED_PUSHED);

    // The newest serves its files, as one asked for does; fetching marks it used.
    Message.CopyStateReply newest = r.pushed.get(r.pushed.size() - 1);
    String file = newest.files().keySet().iterator().next();
    assertThat(r.fetch(Message.SourceKind.COPY_STATE, newest.copyStateId(), file)).isEqualTo(onDisk(file));
    Message.CopyStateReply oldest = r.pushed.get(0);
    assertThatThrownBy(() -> r.fetch(Message.SourceKind.COPY_STATE, oldest.copyStateId(), file))
        .as("an old unused pushed copy-state was released")
        .isInstanceOfSatisfying(NrtClusterException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_COPY_STATE));

    // A refresh the publish gate refuses is never pushed.
    int before = r.pushed.size();
    p.setPublishGate(v -> {
      throw new NotPublishedException("gate closed for version " + v);
    });
    p.writer().addDocument(new org.apache.lucene.document.Document());
    assertThatThrownBy(p::refresh).isInstanceOf(NotPublishedException.class);
    p.setPublishGate(v -> {});
    TestPrimaries.addSegments(p, 1, 5);
    long next = p.version();
    await().atMost(WAIT).until(() -> r.pushed.get(r.pushed.size() - 1).version() == next);
    assertThat(r.pushed.subList(before, r.pushed.size())).extracting(Message.CopyStateReply::version)
        .as("only the version that passed the gate was pushed").containsExactly(next);
  }
}
