package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.PropertiesCodec;
import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The hosts' records and the placement read from them, and where they live beside the indexes. */
@Timeout(30)
class PlacementTest {
  @Test
  void aHostRecordRoundTripsAndAnEmptyOneLeadsNothing() throws Exception {
    HostRecord r = HostRecord.of(7, Set.of("b", "a", "hosts"));
    assertThat(HostRecord.decode(r.encode())).isEqualTo(r);
    assertThat(HostRecord.decode(r.encode()).primaries()).containsExactly("a", "b", "hosts");
    assertThat(HostRecord.decode(HostRecord.of(7, Set.of()).encode()).primaries()).isEmpty();
    assertThat(new String(r.encode(), StandardCharsets.UTF_8)).contains("format=" + HostRecord.FORMAT);
  }

  @Test
  void aLaterFormatThatAddsFieldsIsReadAndARecordWithoutFormatIsMalformed() throws Exception {
    Properties p = new Properties();
    p.setProperty("format", "2");
    p.setProperty("nodeId", "3");
    p.setProperty("primaries", "x,y");
    p.setProperty("weight", "7");
    assertThat(HostRecord.decode(PropertiesCodec.encode(p))).isEqualTo(HostRecord.of(3, Set.of("x", "y")));
    p.remove("format");
    assertThatThrownBy(() -> HostRecord.decode(PropertiesCodec.encode(p))).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> HostRecord.decode("garbage".getBytes(StandardCharsets.UTF_8))).isInstanceOf(ProtocolException.class);
  }

  @Test
  void countsExcludeTheIndexBeingElected() {
    Placement p = Placement.of(List.of(HostRecord.of(1, Set.of("a", "b")), HostRecord.of(2, Set.of("c"))));
    assertThat(p.countsExcluding("a")).isEqualTo(Map.of(1, 1, 2, 1));
    assertThat(p.countsExcluding("z")).isEqualTo(Map.of(1, 2, 2, 1));
    assertThat(p.count(9)).isZero();
    assertThat(p.leadersOf("c")).containsExactly(2);
    assertThat(p.hosts()).containsExactly(1, 2);
  }

  @Test
  void theHostsZnodeCannotCollideWithAnyIndexNotEvenOneNamedHosts() {
    assertThat(ZkLayout.hostsPath("c")).isEqualTo("/nrtcluster/c/_hosts");
    assertThat(ZkLayout.of("c", "hosts").indexPath()).isEqualTo("/nrtcluster/c/hosts").isNotEqualTo(ZkLayout.hostsPath("c"));
    assertThatThrownBy(() -> ZkLayout.of("c", ZkLayout.HOSTS)).isInstanceOf(IllegalArgumentException.class);
    assertThat(ZkLayout.isIndexName(ZkLayout.HOSTS)).isFalse();
    assertThat(ZkLayout.isIndexName("hosts")).isTrue();
  }
}
