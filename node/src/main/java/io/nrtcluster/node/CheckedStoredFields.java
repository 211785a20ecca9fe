package io.nrtcluster.node;

import io.nrtcluster.common.NrtClusterException;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.StoredFieldVisitor;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.AlreadyClosedException;

/**
 * A searcher's stored fields whose failed reads become {@code CorruptIndexReadException} and a check
 * of the document's segment ({@link UnreadableReads}): every I/O error (Lucene's {@link
 * CorruptIndexException}, a read past a file's end, LZ4's plain {@code IOException} for an invalid
 * offset, a failing disk), every runtime error and an assertion error of Lucene's own checks (when
 * assertions are on). Rot in compressed stored fields surfaces as whatever the decoder trips over (an
 * index out of bounds, a null field info handed to the visitor), so no type can be told apart from
 * "corrupt"; a visitor's own error is reported alike. Only a closed reader or channel (a role switch,
 * an interrupted search) and nrtcluster's own errors pass through unchanged.
 */
final class CheckedStoredFields extends StoredFields {
  private final StoredFields in;
  private final IndexSearcher searcher;
  private final UnreadableReads reads;

  CheckedStoredFields(StoredFields in, IndexSearcher searcher, UnreadableReads reads) {
    this.in = in;
    this.searcher = searcher;
    this.reads = reads;
  }

  @Override
  public void prefetch(int docID) throws IOException {
    try {
      in.prefetch(docID);
    } catch (NrtClusterException | AlreadyClosedException | ClosedChannelException e) {
      throw e;
    } catch (IOException | RuntimeException | AssertionError e) {
      throw reads.report(searcher, docID, e);
    }
  }

  @Override
  public void document(int docID, StoredFieldVisitor visitor) throws IOException {
    try {
      in.document(docID, visitor);
    } catch (NrtClusterException | AlreadyClosedException | ClosedChannelException e) {
      throw e;
    } catch (IOException | RuntimeException | AssertionError e) {
      throw reads.report(searcher, docID, e);
    }
  }
}
