package io.nrtcluster.examples.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.queryparser.classic.ParseException;
import org.apache.lucene.queryparser.classic.QueryParser;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.util.BytesRef;

/**
 * Runs one page of a search: Lucene's classic query parser on the catch-all field (the analyzer is
 * the one documents are indexed with), hits by score then doc id, and point-in-time paging. Without
 * a version the page is read from the version this node searches now, which is then kept for later
 * pages; with one, from that exact version if this node still holds it. A document that cannot be
 * read or whose source is not valid JSON is reported to the node ({@code CorruptIndexReadException}:
 * a 503 with {@code Retry-After}, never a 500).
 */
final class SearchService {
  static final int MAX_QUERY_LENGTH = 8192;

  private final Analyzer analyzer = new StandardAnalyzer();
  private final ObjectMapper json;
  private final Duration maxVersionWait;

  SearchService(ObjectMapper json, Duration maxVersionWait) {
    this.json = json;
    this.maxVersionWait = maxVersionWait;
  }

  /**
   * One page request.
   *
   * @param q query in Lucene's classic syntax, or null for every document
   * @param size hits per page
   * @param version point-in-time to read, or -1 for the current one
   * @param after where the previous page ended, or null for the first page
   * @param minVersion wait (bounded) until this node searches at least this version; -1 for no wait
   */
  record Request(String q, int size, long version, Cursor after, long minVersion) {}

  Map<String, Object> search(HostedIndex index, int nodeId, Request r) throws IOException {
    Query query = parse(r.q());
    long version = r.version();
    if (r.after() != null) {
      if (version >= 0 && version != r.after().version()) {
        throw new ApiException(ApiError.BAD_REQUEST, "the cursor in 'after' belongs to version " + r.after().version()
            + ", not to 'version' " + version);
      }
      version = r.after().version();
    }
    if (r.minVersion() >= 0 && !index.searchers().awaitVersion(r.minVersion(), maxVersionWait)) {
      throw new ApiException(ApiError.TIMEOUT, "index " + index.name() + " on node " + nodeId + " did not reach version "
          + r.minVersion() + " within " + maxVersionWait.toMillis() + " ms (it searches "
          + index.node().searchingVersion() + ")", Map.of("minVersion", r.minVersion()));
    }
    PointInTimeSearchers.Lease lease = version >= 0 ? index.searchers().acquire(version) : index.searchers().acquireCurrent();
    try {
      return page(index, nodeId, lease, query, r);
    } finally {
      index.searchers().release(lease);
    }
  }

  private Map<String, Object> page(HostedIndex index, int nodeId, PointInTimeSearchers.Lease lease, Query query, Request r)
      throws IOException {
    IndexSearcher searcher = lease.searcher();
    ScoreDoc after = null;
    if (r.after() != null) {
      if (r.after().doc() >= searcher.getIndexReader().maxDoc()) {
        throw new ApiException(ApiError.BAD_REQUEST, "parameter 'after' names a document this version does not have");
      }
      after = r.after().scoreDoc();
    }
    ClusterNode node = index.node();
    TopDocs top;
    try {
      top = searcher.searchAfter(after, query, r.size());
    } catch (IndexSearcher.TooManyClauses e) {
      throw new ApiException(ApiError.BAD_REQUEST, "query expands to too many terms: " + e.getMessage());
    } catch (CorruptIndexException e) {
      // Which document is not known: the node checks every segment of this point-in-time.
      throw node.reportUnreadable(searcher, -1, e);
    }
    // The node's stored fields turn a codec's failure on rotten bytes into a retryable error.
    StoredFields stored = node.storedFields(searcher);
    List<Map<String, Object>> hits = new ArrayList<>(top.scoreDocs.length);
    for (ScoreDoc sd : top.scoreDocs) {
      Document doc = stored.document(sd.doc);
      Map<String, Object> hit = new LinkedHashMap<>();
      hit.put("id", doc.get(DocumentMapper.ID));
      hit.put("score", sd.score);
      BytesRef source = doc.getBinaryValue(DocumentMapper.SOURCE);
      JsonNode parsed = null;
      if (source != null) {
        try {
          parsed = json.readTree(source.bytes, source.offset, source.length);
        } catch (JsonProcessingException e) {
          // Every source was valid JSON when it was written: rot in compressed stored fields
          // usually decodes to bytes that are not, which only this service can tell.
          throw node.reportUnreadable(searcher, sd.doc, e);
        }
      }
      hit.put("source", parsed);
      hits.add(hit);
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("index", index.name());
    reply.put("node", nodeId);
    reply.put("version", lease.version());
    reply.put("total", Map.of("value", top.totalHits.value(),
        "relation", top.totalHits.relation() == TotalHits.Relation.EQUAL_TO ? "eq" : "gte"));
    reply.put("hits", hits);
    ScoreDoc last = top.scoreDocs.length == r.size() ? top.scoreDocs[top.scoreDocs.length - 1] : null;
    reply.put("cursor", last == null ? null : Cursor.after(lease.version(), last).encode());
    return reply;
  }

  private Query parse(String q) {
    if (q == null || q.isBlank()) {
      return MatchAllDocsQuery.INSTANCE;
    }
    if (q.length() > MAX_QUERY_LENGTH) {
      throw new ApiException(ApiError.BAD_REQUEST, "query longer than " + MAX_QUERY_LENGTH + " characters");
    }
    QueryParser parser = new QueryParser(DocumentMapper.ALL, analyzer);
    try {
      return parser.parse(q);
    } catch (ParseException e) {
      throw new ApiException(ApiError.BAD_REQUEST, "cannot parse query: " + firstLine(e.getMessage()), Map.of("q", q));
    } catch (IndexSearcher.TooManyClauses e) {
      throw new ApiException(ApiError.BAD_REQUEST, "query has too many clauses: " + e.getMessage(), Map.of("q", q));
    }
  }

  private static String firstLine(String s) {
    if (s == null) {
      return "";
    }
    int nl = s.indexOf('\n');
    return nl < 0 ? s : s.substring(0, nl);
  }
}
