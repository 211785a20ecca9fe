package io.nrtcluster.replica;

import io.nrtcluster.common.StalePrimaryGenerationException;
import io.nrtcluster.transport.Connection;
import io.nrtcluster.transport.Message;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.lucene.index.IndexNotFoundException;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.replicator.nrt.CopyState;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.replicator.nrt.NodeCommunicationException;

/**
 * The copy-states a replica node copies from: asked of the primary, or pushed with an NRT point,
 * and checked before a copy uses one; and the application's replay position each reported, kept
 * for the 128 newest versions (when each was in hand goes to the {@link NrtCopyTimeline}).
 *
 * <p>Guarantees: a copy-state from a primary generation older than the highest seen, from another
 * generation than the announcement named, or with other contents than the last commit for one of
 * its files ({@link ResyncRequiredException}) is refused, and released at once, as is one that
 * cannot be read; asking waits for the primary at most its request timeout plus a second, and takes
 * no lock: the node asks outside its monitor, except in Lucene's start-up sync, before any reader.
 */
final class CopyStates {
  private final ReplicatingReplicaNode node;
  private final int nodeId;
  private final ReplicaContext ctx;
  private final NrtCopyTimeline timeline;
  /** Replay positions of recently copied versions, as the primary reported them. */
  private final ConcurrentSkipListMap<Long, String> positions = new ConcurrentSkipListMap<>();

  /**
   * For {@code node}, whose id is {@code nodeId} (the primary hands copy-states out per replica);
   * {@code timeline} hears when each copy-state is in hand.
   */
  CopyStates(ReplicatingReplicaNode node, int nodeId, ReplicaContext ctx, NrtCopyTimeline timeline) {
    this.node = node;
    this.nodeId = nodeId;
    this.ctx = ctx;
    this.timeline = timeline;
  }

  /**
   * The version of the point the primary of generation {@code gen} publishes now, asked on {@code
   * c} (the copy-state released at once), or -1 when it could not be asked. Raises {@link
   * ResyncRequiredException} as {@link #fetch} does.
   */
  long currentVersion(Connection c, long gen) throws IOException {
    Fetched f;
    try {
      f = fetch(c, gen);
    } catch (NodeCommunicationException e) {
      ctx.log().debug("asking for the primary's current point failed: {}", e.toString());
      return -1;
    }
    f.release();
    return f.state().version();
  }

  /** The replay position the primary reported with the copy-state of {@code version}, or null. */
  String reportedPosition(long version) {
    return positions.get(version);
  }

  /** A copy-state the primary handed out (and holds for us until released). */
  record Fetched(Connection connection, CopyState state, long copyStateId) {
    void release() {
      connection.request(id -> new Message.ReleaseCopyState(id, copyStateId)).exceptionally(t -> null);
    }
  }

  /**
   * Asks the primary for its current copy-state and checks it (generation, conflicts with our last
   * commit); the caller holds no monitor readers need. {@code expectedGen} is the generation the
   * announcement named, or -1 for any.
   */
  Fetched fetch(Connection c, long expectedGen) throws IOException {
    Message.CopyStateReply reply;
    try {
      reply = (Message.CopyStateReply) c.request(id -> new Message.GetCopyState(id, nodeId))
          .get(ctx.config().transport().requestTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NodeCommunicationException("interrupted asking for the copy-state", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new NodeCommunicationException("asking the primary for its copy-state failed", e.getCause() == null ? e : e.getCause());
    }
    return accept(c, reply, expectedGen);
  }

  /**
   * Checks a copy-state the primary holds for us (asked for, or pushed with its NRT point):
   * generation, conflicts with our last commit; releases it when it fails.
   */
  Fetched accept(Connection c, Message.CopyStateReply reply, long expectedGen) throws IOException {
    Fetched fetched;
    try {
      fetched = new Fetched(c, new CopyState(FileMetaValidator.fromWire(reply.files()), reply.version(),
          reply.gen(), reply.infosBytes(), reply.completedMergeFiles(), reply.primaryGen(), null), reply.copyStateId());
    } catch (IOException | RuntimeException e) {
      new PushedCopyStates.Pushed(c, reply).release();
      throw e;
    }
    try {
      CopyState state = fetched.state();
      if (reply.replayPosition() != null) {
        positions.put(reply.version(), reply.replayPosition());
        while (positions.size() > 128) {
          positions.pollFirstEntry();
        }
      }
      timeline.copyStateInHand(state.version());
      ReplicatingReplicaNode.requireCurrentGeneration(ctx, state.primaryGen(), "copy-state version " + state.version());
      if (expectedGen >= 0 && state.primaryGen() != expectedGen) {
        throw new NodeCommunicationException("the primary changed while asking for its copy-state",
            new StalePrimaryGenerationException("expected generation " + expectedGen + ", got " + state.primaryGen()));
      }
      if (node.isStarted()) {
        checkNoConflictWithLastCommit(state);
      }
      return fetched;
    } catch (IOException | RuntimeException e) {
      fetched.release();
      throw e;
    }
  }

  /**
   * A new primary must not make us overwrite a file of our last commit with different contents:
   * that commit would then point at the wrong bytes. Lucene avoids it on start-up by syncing before
   * opening; a running replica detects it here and resynchronizes.
   */
  private void checkNoConflictWithLastCommit(CopyState state) throws IOException {
    // Only a file we have under the same name with other contents can hurt; usually there is none.
    Set<String> differing = new HashSet<>();
    for (Map.Entry<String, FileMetaData> e : state.files().entrySet()) {
      FileMetaData local = node.readLocalFileMetaData(e.getKey());
      FileMetaData remote = e.getValue();
      if (local != null && (!Arrays.equals(local.header(), remote.header()) || !Arrays.equals(local.footer(), remote.footer()))) {
        differing.add(e.getKey());
      }
    }
    if (differing.isEmpty()) {
      return;
    }
    Collection<String> commitFiles;
    try {
      commitFiles = SegmentInfos.readLatestCommit(node.getDirectory()).files(true);
    } catch (IndexNotFoundException e) {
      return;
    }
    differing.retainAll(commitFiles);
    if (!differing.isEmpty()) {
      throw new ResyncRequiredException(state.primaryGen(), "primary generation " + state.primaryGen()
          + " has different contents for files of our last commit: " + differing);
    }
  }
}
