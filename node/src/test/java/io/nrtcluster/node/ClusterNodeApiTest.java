package io.nrtcluster.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.primary.Primary;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.IndexWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An application reaches the index only through {@link ClusterNode}'s checked paths: its public API
 * hands out no {@link Primary} and no {@link IndexWriter}, whose writes, refreshes and commits would
 * skip the admission check, the disk floor and the lost-writer check.
 */
@Timeout(10)
class ClusterNodeApiTest {
  @Test
  void noPublicMethodOfClusterNodeHandsOutAPrimaryOrItsWriter() {
    List<String> unchecked = Arrays.stream(ClusterNode.class.getMethods())
        .filter(m -> Modifier.isPublic(m.getModifiers()))
        .filter(ClusterNodeApiTest::handsOutTheWriter)
        .map(Method::toGenericString)
        .toList();
    assertThat(unchecked).as("public methods of ClusterNode that hand out an unchecked primary").isEmpty();
  }

  private static boolean handsOutTheWriter(Method m) {
    String returned = m.getGenericReturnType().getTypeName();
    return Primary.class.isAssignableFrom(m.getReturnType()) || IndexWriter.class.isAssignableFrom(m.getReturnType())
        || returned.contains(Primary.class.getName()) || returned.contains(IndexWriter.class.getName());
  }
}
