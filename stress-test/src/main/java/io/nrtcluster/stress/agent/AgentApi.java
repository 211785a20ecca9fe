package io.nrtcluster.stress.agent;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.Durability;
import io.nrtcluster.replica.ScrubConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The JSON messages between the chaos harness and the control endpoint of each node process. The
 * endpoint is the application around the embedded node: the harness writes, refreshes, commits and
 * searches through it exactly as a search service would call the library.
 */
public final class AgentApi {
  /**
   * The background scrub of every chaos node: a pass every 20 s at up to 64 MiB/s, so that bit rot
   * flipped into a running node's file must be found within one run (the production default is one
   * pass an hour at 4 MiB/s). The harness's bound for finding a flip derives from it.
   */
  public static final ScrubConfig SCRUB = ScrubConfig.builder().interval(Duration.ofSeconds(20))
      .bytesPerSecond(64L << 20).build();

  private AgentApi() {}

  /** What a logged write does to its document. */
  public enum Kind {
    /** Add or replace the document {@code id} with revision {@code seq}. */
    UPSERT,
    /** Delete the document {@code id}. */
    DELETE
  }

  /** One write of the harness's log; its sequence number is also the document's revision. */
  public record Op(long seq, Kind kind, String id, String body) {}

  public record WriteRequest(List<Op> ops) {}

  public record WriteReply(int applied, long gen) {}

  /**
   * {@code gen}: the generation the node led while it refreshed; -1 if that changed during the
   * refresh. {@code numDocs} and {@code digest}: the contents of the searcher the primary published
   * at {@code version} ({@link ChaosDocs#fingerprint}), the reference every search of that version
   * is judged against; {@code numDocs} is -1 when that searcher had already been replaced by a newer
   * one (and for a commit, whose version no searcher opened).
   *
   * <p>{@code durability}: the acknowledgement asked for ({@code ?durability=REPLICATED}; LOCAL
   * otherwise). {@code acknowledged}: whether the refresh was acknowledged with it; a REPLICATED
   * refresh that {@code NotEnoughReplicasException} refused answers false, with the version it
   * published anyway and {@code refusal} {@link ErrorCode#NOT_ENOUGH_REPLICAS} (every other refusal
   * is an {@link ErrorReply} carrying its code, as before). {@code replicas}: the node ids the
   * library named as holding the version.
   */
  public record RefreshReply(long version, long gen, int numDocs, long digest, Durability durability,
      boolean acknowledged, List<Integer> replicas, ErrorCode refusal) {
    public RefreshReply {
      durability = durability == null ? Durability.LOCAL : durability;
      replicas = replicas == null ? List.of() : List.copyOf(replicas);
    }

    /** A LOCAL acknowledgement (the reply of a refresh that asked for no durability, and of a commit). */
    public RefreshReply(long version, long gen, int numDocs, long digest) {
      this(version, gen, numDocs, digest, Durability.LOCAL, true, List.of(), null);
    }

    /** A reply with no contents to judge against. */
    public static RefreshReply withoutContents(long version, long gen) {
      return new RefreshReply(version, gen, -1, 0);
    }

    public boolean hasContents() {
      return numDocs >= 0;
    }
  }

  /** A commit's answer: the version committed and the generation; {@code primary}: committed as the primary (before and after). */
  public record CommitReply(long version, long gen, boolean primary) {}

  /** {@code primary}: the node answered as its index's primary (before and after the search). */
  public record SearchReply(long version, int hits, boolean primary) {}

  /** {@code primary}: the node answered as its index's primary (before and after the search). */
  public record FingerprintReply(long version, int numDocs, long digest, boolean primary) {}

  /** A refused request: {@code error} is the library's error code name (for example NOT_PRIMARY). */
  public record ErrorReply(String error, String message, String primary) {}

  /** A version this node searched first at {@code epochMillis} (wall clock, sampled every few milliseconds). */
  public record VersionSeen(long version, long epochMillis) {}

  /**
   * One node's state and counters. Counters are totals of this process; {@code versionTimes} holds
   * the versions first seen since the previous status request that
   * asked for them ({@code ?drain}). {@code role} travels as the enum constant's name and is parsed
   * back into {@link Role} when the harness reads the reply. {@code writable}: the node is the
   * primary and takes writes now (a node still promoting says PRIMARY but is not writable yet, and
   * has no replay position to give). The {@code bitFlips*} counters are one consistent snapshot of the
   * transport's accounting ({@code injected == detected + discarded + undetected + pending}).
   *
   * <p>The copy tree ({@code CopyTreeConfig}): {@code copySource} is the node id of the replica this
   * replica copies file bytes from, -1 when it copies from the primary or is no replica; {@code
   * copySources} is, on the primary, each connected replica's copy source (replica id to parent id,
   * -1 for the primary; empty elsewhere); {@code copying} is true while a copy of this replica runs,
   * from its parent or the primary. {@code bytesFromPeers} counts the bytes of files this process
   * copied whole from a parent, {@code peerFallbacks} the files a parent could not serve (gone,
   * unreachable, stalled, not matching its checksum) and that it then fetched from the primary, and
   * {@code filesServedToPeers} the files it served to its children, all totals of the process.
   */
  public record Status(
      int nodeId,
      Role role,
      long gen,
      long version,
      long commitVersion,
      String replayPosition,
      boolean copying,
      int preCopiesRunning,
      long bitFlipsInjected,
      long bitFlipsDetected,
      long bitFlipsDiscarded,
      long bitFlipsUndetected,
      long bitFlipsPending,
      long checksumMismatches,
      long bytesCopied,
      long filesCopied,
      List<VersionSeen> versionTimes,
      boolean writable,
      int copySource,
      Map<Integer, Integer> copySources,
      long bytesFromPeers,
      long peerFallbacks,
      long filesServedToPeers) {
    public Status {
      copySources = copySources == null ? Map.of() : Map.copyOf(copySources);
    }

    /** The replicas that copy from {@code parent}, by the primary's {@link #copySources}, in id order. */
    public List<Integer> childrenOf(int parent) {
      return copySources.entrySet().stream().filter(e -> e.getValue() == parent).map(Map.Entry::getKey).sorted().toList();
    }
  }

  /**
   * Written to the node's directory once the node serves: how to reach it ({@code httpHost}: the
   * address its endpoint listens on), and, with an object store, how the index's bootstrap from it
   * ended before the index opened ({@code bootstrap}: a {@code BootstrapResult.Outcome} name, null
   * without a store; {@code bootstrapVersion}: the backup's version it restored or refused, else -1).
   */
  public record Ready(long pid, String httpHost, int httpPort, String replicationAddress, String bootstrap,
      long bootstrapVersion) {
    /** Name of the file in the node's directory. */
    public static final String FILE = "ready.json";

    /** A node without an object store. */
    public Ready(long pid, String httpHost, int httpPort, String replicationAddress) {
      this(pid, httpHost, httpPort, replicationAddress, null, -1);
    }

    /** Writes it to {@code dir} atomically, so the harness never reads half a file. */
    public void writeTo(Path dir) throws IOException {
      Path tmp = dir.resolve(FILE + ".tmp");
      JsonHttp.JSON.writeValue(tmp.toFile(), this);
      Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
