package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Stable;
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
 */
@Stable
public record IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig, int minInSyncReplicas) {
  /** Default {@link #minInSyncReplicas}. */
  public static final int DEFAULT_MIN_IN_SYNC_REPLICAS = 1;

  public IndexSettings {
    Checks.safeName("index", name);
    Checks.notNull("writerConfig", writerConfig);
    Checks.inRange("minInSyncReplicas", minInSyncReplicas, 0, 64);
  }

  /** Settings with the default {@link #minInSyncReplicas} (1). */
  public IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig) {
    this(name, writerConfig, DEFAULT_MIN_IN_SYNC_REPLICAS);
  }

  /** These settings with {@code n} as {@link #minInSyncReplicas}. */
  public IndexSettings withMinInSyncReplicas(int n) {
    return new IndexSettings(name, writerConfig, n);
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
