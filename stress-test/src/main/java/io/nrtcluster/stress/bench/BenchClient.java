package io.nrtcluster.stress.bench;

import io.nrtcluster.node.Durability;
import io.nrtcluster.stress.AgentException;
import io.nrtcluster.stress.JsonClient;
import java.time.Duration;
import java.util.Map;

/** Calls one benchmark node process ({@link BenchAgent}). */
final class BenchClient {
  private final JsonClient json;

  BenchClient(String who, int port) {
    this.json = new JsonClient(who, port);
  }

  BenchApi.LoadReply load(LoadRunner.Mode mode, int docsPerSec, long refreshMs, long warmupSec, long seconds)
      throws AgentException {
    return json.post("/load?mode=" + mode + "&docsPerSec=" + docsPerSec + "&refreshMs=" + refreshMs + "&warmupSec="
        + warmupSec + "&seconds=" + seconds, null, Duration.ofSeconds(warmupSec + seconds + 120), BenchApi.LoadReply.class);
  }

  /**
   * A load whose refreshes are acknowledged with {@code durability} (figure 11); {@code overlapping}:
   * each refresh on its own thread on the interval's clock ({@link LoadRunner}).
   */
  BenchApi.LoadReply load(LoadRunner.Mode mode, Durability durability, boolean overlapping, int docsPerSec,
      long refreshMs, long warmupSec, long seconds) throws AgentException {
    return json.post("/load?mode=" + mode + "&durability=" + durability + "&overlapping=" + overlapping
        + "&docsPerSec=" + docsPerSec + "&refreshMs=" + refreshMs + "&warmupSec=" + warmupSec + "&seconds=" + seconds,
        null, Duration.ofSeconds(warmupSec + seconds + 120), BenchApi.LoadReply.class);
  }

  /** Adds {@code docs} documents with ids {@code prefix0..} and refreshes with {@code durability} (figure 6's loss). */
  BenchApi.AckBatchReply ackBatch(String prefix, int docs, Durability durability) throws AgentException {
    return json.post("/ackBatch?prefix=" + prefix + "&docs=" + docs + "&durability=" + durability, null,
        Duration.ofSeconds(30), BenchApi.AckBatchReply.class);
  }

  /** How many documents with an id starting with {@code prefix} the node searches. */
  BenchApi.CountReply countIds(String prefix) throws AgentException {
    return json.get("/countIds?prefix=" + prefix, Duration.ofSeconds(10), BenchApi.CountReply.class);
  }

  BenchApi.VisibleReply visible() throws AgentException {
    return json.get("/visible", Duration.ofSeconds(10), BenchApi.VisibleReply.class);
  }

  long cpuNanos(long from, long to) throws AgentException {
    return cpu(from, to).cpuNanos();
  }

  /** The node process's CPU between two nanoTime instants, with its user-mode part. */
  BenchApi.CpuReply cpu(long from, long to) throws AgentException {
    return json.get("/cpu?from=" + from + "&to=" + to, Duration.ofSeconds(10), BenchApi.CpuReply.class);
  }

  BenchApi.SearchReply search(long seconds, int threads) throws AgentException {
    return json.post("/search?seconds=" + seconds + "&threads=" + threads, null, Duration.ofSeconds(seconds + 60),
        BenchApi.SearchReply.class);
  }

  /** Ends a search load under way (its reply then comes at once). */
  void stopSearch() throws AgentException {
    json.post("/stopSearch", null, Duration.ofSeconds(10), Map.class);
  }

  /** Paces this replica's merge pre-copies that start from now on (0: unpaced). */
  void preCopyBytesPerSecond(long bytesPerSecond) throws AgentException {
    json.post("/preCopyRate?bytesPerSecond=" + bytesPerSecond, null, Duration.ofSeconds(10), Map.class);
  }

  BenchApi.BulkReply bulk(long bytes, long segmentBytes) throws AgentException {
    return json.post("/bulk?bytes=" + bytes + "&segmentBytes=" + segmentBytes, null, Duration.ofMinutes(20),
        BenchApi.BulkReply.class);
  }

  void deleteAll() throws AgentException {
    json.post("/deleteAll", null, Duration.ofMinutes(2), Map.class);
  }

  BenchApi.MergeReply forceMerge() throws AgentException {
    return json.post("/forceMerge", null, Duration.ofMinutes(30), BenchApi.MergeReply.class);
  }

  void write() throws AgentException {
    json.post("/write", null, Duration.ofSeconds(2), Map.class);
  }

  /** Sets the one-way delay of every link of this cluster node (the transport's "linkDelay" fault point). */
  void linkDelay(long ms) throws AgentException {
    json.post("/linkDelay?ms=" + ms, null, Duration.ofSeconds(10), Map.class);
  }

  BenchApi.StatusReply status() throws AgentException {
    return json.get("/status", Duration.ofSeconds(2), BenchApi.StatusReply.class);
  }

  /**
   * The bootstrap figure's index build on the primary (to {@code bytes} on disk, a force-merge to
   * {@code mergeToSegments} segments unless 0, then a commit).
   */
  BenchApi.BuildReply bootstrapBuild(long bytes, int mergeToSegments) throws AgentException {
    return json.post("/bootstrap-build?bytes=" + bytes + "&mergeToSegments=" + mergeToSegments, null, Duration.ofHours(2),
        BenchApi.BuildReply.class);
  }

  /** A refresh and commit on the primary; returns the version committed. */
  long bootstrapCommit() throws AgentException {
    return json.post("/bootstrap-commit", null, Duration.ofMinutes(5), BenchApi.CommitReply.class).version();
  }

  void bootstrapLoadStart(int docsPerSec, long refreshMs) throws AgentException {
    json.post("/bootstrap-load-start?docsPerSec=" + docsPerSec + "&refreshMs=" + refreshMs, null, Duration.ofSeconds(10),
        BenchApi.DocsReply.class);
  }

  BenchApi.DocsReply bootstrapLoadDocs() throws AgentException {
    return json.get("/bootstrap-load-docs", Duration.ofSeconds(10), BenchApi.DocsReply.class);
  }

  BenchApi.DocsReply bootstrapLoadStop() throws AgentException {
    return json.post("/bootstrap-load-stop", null, Duration.ofMinutes(2), BenchApi.DocsReply.class);
  }

  BenchApi.StoreReply bootstrapStore() throws AgentException {
    return json.get("/bootstrap-store", Duration.ofSeconds(30), BenchApi.StoreReply.class);
  }

  /** The node's copying for the fan-out figure: bytes sent per peer, copy tree, copy counters. */
  BenchApi.CopyTreeStatus copyTree() throws AgentException {
    return json.get("/copy-tree", Duration.ofSeconds(10), BenchApi.CopyTreeStatus.class);
  }
}
