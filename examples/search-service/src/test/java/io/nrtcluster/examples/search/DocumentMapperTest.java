package io.nrtcluster.examples.search;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Arrays;
import org.apache.lucene.index.IndexableField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class DocumentMapperTest {
  final ObjectMapper json = new ObjectMapper();
  final DocumentMapper mapper = new DocumentMapper(json);

  DocumentMapper.Mapped map(String text) throws Exception {
    return mapper.map(json.readTree(text));
  }

  @Test
  void mapsIdTextNestedArraysCatchAllAndSource() throws Exception {
    DocumentMapper.Mapped m = map("{\"id\": 42, \"title\": \"Hello World\", \"meta\": {\"tags\": [\"a\", \"b\"], \"n\": 7},"
        + " \"gone\": null}");
    assertThat(m.id()).isEqualTo("42");
    assertThat(m.idTerm().field()).isEqualTo("id");
    assertThat(m.document().get("id")).isEqualTo("42");
    assertThat(values(m, "title")).containsExactly("Hello World");
    assertThat(values(m, "meta.tags")).containsExactly("a", "b");
    assertThat(values(m, "meta.n")).containsExactly("7");
    assertThat(values(m, "_all")).containsExactly("Hello World", "a", "b", "7");
    assertThat(m.document().getField("gone")).isNull();
    assertThat(json.readTree(m.document().getBinaryValue("_source").utf8ToString()))
        .isEqualTo(json.readTree("{\"id\": 42, \"title\": \"Hello World\", \"meta\": {\"tags\": [\"a\", \"b\"], \"n\": 7},"
            + " \"gone\": null}"));
  }

  static String[] values(DocumentMapper.Mapped m, String field) {
    return Arrays.stream(m.document().getFields(field)).map(IndexableField::stringValue).toArray(String[]::new);
  }

  @Test
  void refusesWhatItCannotIndexNamingTheProblem() {
    assertBad("[]", "JSON object");
    assertBad("\"text\"", "JSON object");
    assertBad("{}", "needs an \"id\"");
    assertBad("{\"id\": null}", "needs an \"id\"");
    assertBad("{\"id\": true}", "string or an integer");
    assertBad("{\"id\": \"\"}", "1-512 characters");
    assertBad("{\"id\": \"" + "x".repeat(513) + "\"}", "1-512 characters");
    assertBad("{\"id\": 1, \"_all\": \"x\"}", "reserved");
    assertBad("{\"id\": 1, \"a b\": \"x\"}", "field name 'a b'");
    assertBad("{\"id\": 1, \"a\": {\"_x\": 1}}", "field name '_x'");
    assertBad("{\"id\": 1, \"a\": " + "[".repeat(20) + "1" + "]".repeat(20) + "}", "nested deeper");
    StringBuilder many = new StringBuilder("{\"id\": 1, \"v\": [");
    for (int i = 0; i <= DocumentMapper.MAX_FIELDS; i++) {
      many.append(i == 0 ? "" : ",").append(i);
    }
    assertBad(many.append("]}").toString(), "at most " + DocumentMapper.MAX_FIELDS);
  }

  void assertBad(String text, String messagePart) {
    assertThatThrownBy(() -> map(text)).isInstanceOfSatisfying(ApiException.class, e -> {
      assertThat(e.error()).isEqualTo(ApiError.BAD_REQUEST);
      assertThat(e.getMessage()).contains(messagePart);
    });
  }
}
