package io.nrtcluster.replica;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(60)
class EmbeddingExampleTest {
  private static final String START = "// README-EXAMPLE-START";
  private static final String END = "// README-EXAMPLE-END";

  @Test
  void theReadmeExampleRunsAndFindsTheDocument(@TempDir Path dir) throws Exception {
    assertThat(EmbeddingExample.run(dir)).isEqualTo(1);
  }

  @Test
  void theReadmeShowsExactlyThisExample() throws Exception {
    Path source = Path.of("src/test/java/io/nrtcluster/replica/EmbeddingExample.java");
    Path readme = Path.of("../README.md");
    String example = between(Files.readString(source, StandardCharsets.UTF_8));
    String text = Files.readString(readme, StandardCharsets.UTF_8);
    int fence = text.indexOf("```java", text.indexOf("## Embed it"));
    assertThat(fence).as("java block under '## Embed it'").isNotNegative();
    int bodyStart = text.indexOf('\n', fence) + 1;
    String fromReadme = text.substring(bodyStart, text.indexOf("```", bodyStart)).stripTrailing();
    assertThat(fromReadme).as("README.md example block == EmbeddingExample.java").isEqualTo(example);
  }

  /** The lines between the markers, with common indentation removed. */
  private static String between(String text) {
    int start = text.indexOf(START);
    int end = text.indexOf(END);
    assertThat(start).as("start marker").isNotNegative();
    assertThat(end).as("end marker").isGreaterThan(start);
    String block = text.substring(text.indexOf('\n', start) + 1, text.lastIndexOf('\n', end) + 1);
    int indent = block.lines().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    return block.lines().map(l -> l.isBlank() ? "" : l.substring(indent)).collect(Collectors.joining("\n"));
  }
}
