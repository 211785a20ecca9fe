package io.nrtcluster.examples.search;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Applies a batch of JSON documents on this node, which must be the primary: every document is
 * parsed and mapped first (bad input is a 400 before anything is written), then each replaces the
 * document with its id. A write is acknowledged once the primary's {@code IndexWriter} took it: it
 * is searchable after the next refresh (periodic, or {@code refresh=true}), on replicas once they
 * copied that version, and durable after a commit. There is no transaction log: a batch the primary
 * took but never refreshed and replicated is lost if the primary dies; replay such writes from your
 * source (they are idempotent by id).
 */
final class DocumentWriter {
  static final int MAX_BATCH = 10_000;

  private final ObjectMapper json;
  private final DocumentMapper mapper;

  DocumentWriter(ObjectMapper json) {
    this.json = json;
    this.mapper = new DocumentMapper(json);
  }

  /** Parses a body holding one JSON object or an array of them. */
  List<DocumentMapper.Mapped> parse(byte[] body) {
    JsonNode root;
    try {
      root = json.readTree(body);
    } catch (JacksonException e) {
      throw new ApiException(ApiError.BAD_REQUEST, "body is not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new ApiException(ApiError.BAD_REQUEST, "body cannot be read as JSON: " + e.getMessage());
    }
    if (root == null || root.isMissingNode()) {
      throw new ApiException(ApiError.BAD_REQUEST, "body is empty: send a JSON object or an array of them");
    }
    List<DocumentMapper.Mapped> docs = new ArrayList<>();
    if (root.isArray()) {
      if (root.size() > MAX_BATCH) {
        throw new ApiException(ApiError.BAD_REQUEST, "a batch holds at most " + MAX_BATCH + " documents, got " + root.size());
      }
      int i = 0;
      for (JsonNode element : root) {
        try {
          docs.add(mapper.map(element));
        } catch (ApiException e) {
          throw new ApiException(e.error(), "document " + i + ": " + e.getMessage(), Map.of("document", i));
        }
        i++;
      }
    } else {
      docs.add(mapper.map(root));
    }
    return docs;
  }

  /** Writes the mapped documents through {@code index}'s cluster node (NotPrimaryException if it is not the primary). */
  void apply(HostedIndex index, List<DocumentMapper.Mapped> docs) throws IOException {
    for (DocumentMapper.Mapped doc : docs) {
      index.node().updateDocument(doc.idTerm(), doc.document());
    }
  }
}
