package io.nrtcluster.cli;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/** The queries whose hit counts the demo compares across nodes at the final version; "all" first. */
final class DemoQueries {
  static final List<Map.Entry<String, Query>> QUERIES = List.of(
      Map.entry("all", MatchAllDocsQuery.INSTANCE),
      Map.entry("commission", new TermQuery(new Term("body", "commission"))),
      Map.entry("europa", new TermQuery(new Term("body", "europa"))),
      Map.entry("parliament", new TermQuery(new Term("body", "parliament"))));

  private DemoQueries() {}

  static long[] counts(IndexSearcher s) throws IOException {
    long[] out = new long[QUERIES.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = s.count(QUERIES.get(i).getValue());
    }
    return out;
  }

  static String hits(long[] counts) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < counts.length; i++) {
      sb.append(i == 0 ? "" : " ").append(QUERIES.get(i).getKey()).append('=').append(counts[i]);
    }
    return sb.toString();
  }
}
