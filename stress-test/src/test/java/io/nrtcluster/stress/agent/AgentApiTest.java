package io.nrtcluster.stress.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.election.Role;
import io.nrtcluster.node.Durability;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentApiTest {
  @Test
  void aRefreshReplySaysWhetherItWasAcknowledgedAndWhyNot() throws Exception {
    AgentApi.RefreshReply refused = new AgentApi.RefreshReply(12, 3, 40, 0xabc, Durability.REPLICATED, false, List.of(2),
        ErrorCode.NOT_ENOUGH_REPLICAS);
    String json = JsonHttp.JSON.writeValueAsString(refused);
    assertThat(json).contains("\"acknowledged\":false", "\"refusal\":\"NOT_ENOUGH_REPLICAS\"", "\"durability\":\"REPLICATED\"");
    assertThat(JsonHttp.JSON.readValue(json, AgentApi.RefreshReply.class)).isEqualTo(refused);

    AgentApi.RefreshReply local = AgentApi.RefreshReply.withoutContents(7, 2);
    AgentApi.RefreshReply back = JsonHttp.JSON.readValue(JsonHttp.JSON.writeValueAsString(local), AgentApi.RefreshReply.class);
    assertThat(back).isEqualTo(local);
    assertThat(back.acknowledged()).isTrue();
    assertThat(back.durability()).isEqualTo(Durability.LOCAL);
    assertThat(back.refusal()).isNull();
    // A reply without the durability fields (an older endpoint) reads as LOCAL, naming no replicas.
    AgentApi.RefreshReply old = JsonHttp.JSON.readValue("{\"version\":5,\"gen\":1,\"numDocs\":-1,\"digest\":0}",
        AgentApi.RefreshReply.class);
    assertThat(old.durability()).isEqualTo(Durability.LOCAL);
    assertThat(old.replicas()).isEmpty();
  }

  /** The copy tree travels in the status: the primary's plan, each replica's own source and its peer counters. */
  @Test
  void aStatusCarriesTheCopyTree() throws Exception {
    AgentApi.Status primary = status(1, -1, Map.of(2, -1, 3, -1, 4, 2), 0, 0);
    AgentApi.Status back = JsonHttp.JSON.readValue(JsonHttp.JSON.writeValueAsString(primary), AgentApi.Status.class);
    assertThat(back.copySources()).isEqualTo(Map.of(2, -1, 3, -1, 4, 2));
    assertThat(back.childrenOf(2)).containsExactly(4);
    assertThat(back.childrenOf(3)).isEmpty();
    assertThat(back.childrenOf(-1)).containsExactly(2, 3);

    AgentApi.Status child = status(4, 2, null, 1 << 20, 3);
    String json = JsonHttp.JSON.writeValueAsString(child);
    assertThat(json).contains("\"copySource\":2", "\"bytesFromPeers\":1048576", "\"peerFallbacks\":3");
    back = JsonHttp.JSON.readValue(json, AgentApi.Status.class);
    assertThat(back.copySource()).isEqualTo(2);
    assertThat(back.copySources()).isEmpty();
    assertThat(back.bytesFromPeers()).isEqualTo(1 << 20);
    assertThat(back.peerFallbacks()).isEqualTo(3);
  }

  private static AgentApi.Status status(int id, int copySource, Map<Integer, Integer> sources, long fromPeers,
      long fallbacks) {
    return new AgentApi.Status(id, copySource < 0 && sources != null ? Role.PRIMARY : Role.REPLICA, 3, 40, 30, "12",
        fallbacks > 0, 0, 0, 0, 0, 0, 0, 0, 4096, 5, List.of(), sources != null, copySource, sources, fromPeers,
        fallbacks, 0);
  }
}
