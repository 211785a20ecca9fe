package io.nrtcluster.examples.search;

import java.nio.ByteBuffer;
import java.util.Base64;
import org.apache.lucene.search.ScoreDoc;

/**
 * Where a page ended: the point-in-time version it was read from and the last hit (Lucene doc id
 * and score). Every node searching that version holds the very same segments, so the doc id means
 * the same document on each of them and {@code IndexSearcher.searchAfter} continues exactly there.
 * Opaque to clients: URL-safe base64 of 16 bytes.
 *
 * @param version the point-in-time version
 * @param doc the last hit's doc id
 * @param score the last hit's score
 */
record Cursor(long version, int doc, float score) {
  private static final int LENGTH = Long.BYTES + Integer.BYTES + Float.BYTES;

  static Cursor after(long version, ScoreDoc last) {
    return new Cursor(version, last.doc, last.score);
  }

  ScoreDoc scoreDoc() {
    return new ScoreDoc(doc, score);
  }

  String encode() {
    ByteBuffer b = ByteBuffer.allocate(LENGTH).putLong(version).putInt(doc).putFloat(score);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(b.array());
  }

  /** Decodes a cursor; anything that is not one is a 400. */
  static Cursor decode(String text) {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw invalid(text);
    }
    if (bytes.length != LENGTH) {
      throw invalid(text);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes);
    long version = b.getLong();
    int doc = b.getInt();
    float score = b.getFloat();
    if (version < 0 || doc < 0 || Float.isNaN(score)) {
      throw invalid(text);
    }
    return new Cursor(version, doc, score);
  }

  private static ApiException invalid(String text) {
    return new ApiException(ApiError.BAD_REQUEST, "parameter 'after' is not a cursor from a search reply: '"
        + (text.length() > 64 ? text.substring(0, 64) + "..." : text) + "'");
  }
}
