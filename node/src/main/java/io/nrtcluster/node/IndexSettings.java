package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Stable;
import io.nrtcluster.primary.CopyTreeConfig;
import java.util.function.Supplier;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.index.IndexWriterConfig;

/**
 * What one index needs beyond the host: its name and how to configure a writer when this node
 * becomes its primary (a fresh {@link IndexWriterConfig} each time: Lucene does not reuse them).
 *
 * @param name index (shard) name
 * @param writerConfig supplies the analyzer and writer settings of the primary
 * @param minInSyncReplicas how many in-sync replicas must hold a version before a {@link
 *     Durability#REPLICATED} refresh or commit acknowledges it (Kafka's {@code min.insync.replicas},
 *     counting replicas only); fewer fails with {@code NotEnoughReplicasException}. 0 to 64, default 1:
 *     a replicated acknowledgement then always means "on at least two nodes"
 * @param copyTree which replicas copy from the primary and which from a peer ({@link
 *     CopyTreeConfig}); by default two replicas (and every in-sync one) copy from the primary and
 *     the others from a peer, at most two per parent. Only members of the in-sync set count for a
 *     {@link Durability#REPLICATED} acknowledgement and for elections, and a replica that copies
 *     from a peer never joins it, so past {@code directReplicas} replicas add search capacity, not
 *     durability. {@link CopyTreeConfig#OFF}: every replica copies from the primary and may join
 */
@Stable
public record IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig, int minInSyncReplicas,
    CopyTreeConfig copyTree) {
  /** Default {@link #minInSyncReplicas}. */
  public static final int DEFAULT_MIN_IN_SYNC_REPLICAS = 1;

  /** Validates every field; throws {@link IllegalArgumentException} naming the first bad one. */
  public IndexSettings {
    Checks.safeName("index", name);
    Checks.notNull("writerConfig", writerConfig);
    Checks.inRange("minInSyncReplicas", minInSyncReplicas, 0, 64);
    Checks.notNull("copyTree", copyTree);
  }

  /** Settings with the default {@link #copyTree}. */
  public IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig, int minInSyncReplicas) {
    this(name, writerConfig, minInSyncReplicas, CopyTreeConfig.defaults());
  }

  /** Settings with the default {@link #minInSyncReplicas} (1). */
  public IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig) {
    this(name, writerConfig, DEFAULT_MIN_IN_SYNC_REPLICAS);
  }

  /** These settings with {@code n} as {@link #minInSyncReplicas}. */
  public IndexSettings withMinInSyncReplicas(int n) {
    return new IndexSettings(name, writerConfig, n, copyTree);
  }

  /** These settings with {@code tree} as {@link #copyTree}. */
  public IndexSettings withCopyTree(CopyTreeConfig tree) {
    return new IndexSettings(name, writerConfig, minInSyncReplicas, tree);
  }

  /**
   * An index analyzed with Lucene's {@link StandardAnalyzer}, whose refreshes never wait for merges:
   * {@code maxFullFlushMergeWaitMillis} is 0 instead of Lucene's 500 ms. Waiting lets a refresh fold
   * small segments together, but it is paid in visibility on every node (the p99 of a local refresh
   * rises to about the wait itself, see docs/benchmarks.md), and with replication merged segments
   * are pre-copied in the background anyway.
   */
  public static IndexSettings standard(String name) {
    return new IndexSettings(name, () -> new IndexWriterConfig(new StandardAnalyzer()).setMaxFullFlushMergeWaitMillis(0));
  }
}
