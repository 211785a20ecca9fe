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
 */
@Stable
public record IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig) {
  public IndexSettings {
    Checks.safeName("index", name);
    Checks.notNull("writerConfig", writerConfig);
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
