package io.nrtcluster.node;

import io.nrtcluster.common.Checks;
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
public record IndexSettings(String name, Supplier<IndexWriterConfig> writerConfig) {
  public IndexSettings {
    Checks.safeName("index", name);
    Checks.notNull("writerConfig", writerConfig);
  }

  /** An index analyzed with Lucene's {@link StandardAnalyzer}. */
  public static IndexSettings standard(String name) {
    return new IndexSettings(name, () -> new IndexWriterConfig(new StandardAnalyzer()));
  }
}
