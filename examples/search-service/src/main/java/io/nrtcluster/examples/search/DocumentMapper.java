package io.nrtcluster.examples.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.Term;
import org.apache.lucene.util.BytesRef;

/**
 * Turns one JSON object into a Lucene document: its {@code id} (a string or an integer, required)
 * as an exact-match stored field that updates replace by; every other value as analyzed text under
 * its field name (nested objects as {@code a.b}, arrays as repeated values) and again under the
 * catch-all {@value #ALL} field that queries without a field name search; and the whole object as
 * stored source, returned by searches. Names starting with {@code _} are reserved. Bad input is an
 * {@link ApiException} (400) naming what is wrong, before anything is indexed.
 */
final class DocumentMapper {
  static final String ID = "id";
  static final String ALL = "_all";
  static final String SOURCE = "_source";
  static final int MAX_ID_LENGTH = 512;
  static final int MAX_DEPTH = 16;
  static final int MAX_FIELDS = 1000;

  private static final Pattern FIELD_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");

  private final ObjectMapper json;

  DocumentMapper(ObjectMapper json) {
    this.json = json;
  }

  /** A mapped document and the term that identifies it for updates. */
  record Mapped(String id, Document document) {
    Term idTerm() {
      return new Term(ID, id);
    }
  }

  Mapped map(JsonNode source) {
    if (source == null || !source.isObject()) {
      throw bad("a document must be a JSON object, got " + kind(source));
    }
    String id = id(source.get(ID));
    Document doc = new Document();
    doc.add(new StringField(ID, id, Field.Store.YES));
    int[] fields = {0};
    Iterator<Map.Entry<String, JsonNode>> it = source.properties().iterator();
    while (it.hasNext()) {
      Map.Entry<String, JsonNode> e = it.next();
      if (!e.getKey().equals(ID)) {
        add(doc, checkedName(e.getKey(), null), e.getValue(), 1, fields);
      }
    }
    try {
      doc.add(new StoredField(SOURCE, new BytesRef(json.writeValueAsBytes(source))));
    } catch (JsonProcessingException e) {
      throw bad("document " + id + " cannot be serialized: " + e.getOriginalMessage());
    }
    return new Mapped(id, doc);
  }

  private static String id(JsonNode node) {
    if (node == null || node.isNull()) {
      throw bad("a document needs an \"" + ID + "\" (a string or an integer): updates replace documents by it");
    }
    String id;
    if (node.isTextual()) {
      id = node.textValue();
    } else if (node.isIntegralNumber()) {
      id = node.bigIntegerValue().toString();
    } else {
      throw bad("\"" + ID + "\" must be a string or an integer, got " + kind(node));
    }
    if (id.isEmpty() || id.length() > MAX_ID_LENGTH) {
      throw bad("\"" + ID + "\" must be 1-" + MAX_ID_LENGTH + " characters long, got " + id.length());
    }
    return id;
  }

  private static String checkedName(String name, String parent) {
    if (!FIELD_NAME.matcher(name).matches()) {
      throw bad("field name '" + name + "' must be of [A-Za-z0-9_-] and start with a letter or digit"
          + " (names starting with '_' are reserved)");
    }
    return parent == null ? name : parent + "." + name;
  }

  private void add(Document doc, String field, JsonNode value, int depth, int[] fields) {
    if (depth > MAX_DEPTH) {
      throw bad("field '" + field + "' is nested deeper than " + MAX_DEPTH + " levels");
    }
    if (value.isNull()) {
      return;
    }
    if (value.isObject()) {
      Iterator<Map.Entry<String, JsonNode>> it = value.properties().iterator();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        add(doc, checkedName(e.getKey(), field), e.getValue(), depth + 1, fields);
      }
      return;
    }
    if (value.isArray()) {
      for (JsonNode element : value) {
        add(doc, field, element, depth + 1, fields);
      }
      return;
    }
    if (++fields[0] > MAX_FIELDS) {
      throw bad("a document may hold at most " + MAX_FIELDS + " values");
    }
    String text = value.asText();
    doc.add(new TextField(field, text, Field.Store.NO));
    doc.add(new TextField(ALL, text, Field.Store.NO));
  }

  private static String kind(JsonNode node) {
    return node == null ? "nothing" : node.getNodeType().name().toLowerCase(Locale.ROOT);
  }

  private static ApiException bad(String message) {
    return new ApiException(ApiError.BAD_REQUEST, message);
  }
}
