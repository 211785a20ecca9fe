package io.nrtcluster.stress.agent;

import java.io.IOException;
import java.io.Writer;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.StringHelper;

/**
 * The chaos test's documents: an id (for updates and deletes), a revision (the harness's log
 * sequence number of the write that produced it) and a body of words to search. Also how a searcher's
 * contents are summarised, so two nodes can prove they search the same thing at the same version.
 */
public final class ChaosDocs {
  public static final String ID = "id";
  public static final String REV = "rev";
  public static final String BODY = "body";

  private ChaosDocs() {}

  /** The document the harness's upsert of {@code id} at log sequence {@code rev} stands for. */
  public static Document document(String id, long rev, String body) {
    Document doc = new Document();
    doc.add(new StringField(ID, id, Field.Store.NO));
    doc.add(new SortedDocValuesField(ID, new BytesRef(id)));
    doc.add(new NumericDocValuesField(REV, rev));
    doc.add(new TextField(BODY, body, Field.Store.NO));
    return doc;
  }

  public static Term idTerm(String id) {
    return new Term(ID, id);
  }

  /** Hits of one body word. */
  public static int count(IndexSearcher searcher, String word) throws IOException {
    return searcher.count(new TermQuery(new Term(BODY, word)));
  }

  /** The version a searcher opened. */
  public static long version(IndexSearcher searcher) {
    return ((DirectoryReader) searcher.getIndexReader()).getVersion();
  }

  /** Sees one live document: its id bytes (valid only during the call) and its revision. */
  @FunctionalInterface
  private interface LiveDocVisitor {
    void visit(BytesRef id, long rev) throws IOException;
  }

  /** Calls {@code visitor} for every live document of the searcher's reader. */
  private static void forEachLive(IndexSearcher searcher, LiveDocVisitor visitor) throws IOException {
    BytesRef missing = new BytesRef();
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      LeafReader reader = leaf.reader();
      Bits liveDocs = reader.getLiveDocs();
      SortedDocValues ids = DocValues.getSorted(reader, ID);
      NumericDocValues revs = DocValues.getNumeric(reader, REV);
      for (int doc = 0; doc < reader.maxDoc(); doc++) {
        if (liveDocs != null && !liveDocs.get(doc)) {
          continue;
        }
        BytesRef id = ids.advanceExact(doc) ? ids.lookupOrd(ids.ordValue()) : missing;
        visitor.visit(id, revs.advanceExact(doc) ? revs.longValue() : -1);
      }
    }
  }

  /**
   * Live document count and an order-independent digest of every live (id, revision) pair: equal
   * digests at equal versions mean equal contents (up to a 64-bit collision).
   */
  public static Fingerprint fingerprint(IndexSearcher searcher) throws IOException {
    Digest digest = new Digest();
    forEachLive(searcher, digest);
    return new Fingerprint(version(searcher), digest.count, digest.sum);
  }

  /** The running sum of the mixed pairs and their count, one pass over the live documents. */
  private static final class Digest implements LiveDocVisitor {
    private long sum;
    private int count;

    @Override
    public void visit(BytesRef id, long rev) {
      sum += mix(StringHelper.murmurhash3_x86_32(id, 0x5eed) * 0x9E3779B97F4A7C15L + rev);
      count++;
    }
  }

  /** Every live document's id and revision ({@code ?} for a document without an id). */
  public static Map<String, Long> revisions(IndexSearcher searcher) throws IOException {
    Map<String, Long> out = new HashMap<>();
    forEachLive(searcher, (id, rev) -> out.put(id.length == 0 ? "?" : id.utf8ToString(), rev));
    return out;
  }

  /** Writes one {@code id rev} line per live document ({@code ?} for a document without an id). */
  public static void dump(IndexSearcher searcher, Writer out) throws IOException {
    forEachLive(searcher, (id, rev) -> {
      out.write(id.length == 0 ? "?" : id.utf8ToString());
      out.write(' ');
      out.write(Long.toString(rev));
      out.write('\n');
    });
  }

  /** Stafford's variant 13 of the 64-bit finaliser: spreads each pair over all bits before summing. */
  private static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** What a searcher holds, in three numbers. */
  public record Fingerprint(long version, int numDocs, long digest) {}
}
