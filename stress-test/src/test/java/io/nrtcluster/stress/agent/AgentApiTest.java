package io.nrtcluster.stress.agent;

import static org.assertj.core.api.Assertions.assertThat;

import io.nrtcluster.common.ErrorCode;
import io.nrtcluster.node.Durability;
import java.util.List;
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
}
