package io.nrtcluster.election;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nrtcluster.common.ProtocolException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The records operators and nodes exchange in ZooKeeper, without ZooKeeper. */
class OperatorRecordsTest {
  @Test
  void commandsRoundTripAndSayWhomTheyAddress() throws Exception {
    for (OperatorCommand c : new OperatorCommand[] {OperatorCommand.commitAll(), OperatorCommand.commit(0), OperatorCommand.commit(65535)}) {
      assertThat(OperatorCommand.decode(c.encode())).isEqualTo(c);
    }
    assertThat(OperatorCommand.commitAll().addresses(3)).isTrue();
    assertThat(OperatorCommand.commit(3).addresses(3)).isTrue();
    assertThat(OperatorCommand.commit(3).addresses(4)).isFalse();
    assertThatThrownBy(() -> OperatorCommand.commit(70000)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("target");
    assertThatThrownBy(() -> new OperatorCommand(null, 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("kind");
  }

  @Test
  void acksRoundTripAndPrintAsOperatorsReadThem() throws Exception {
    assertThat(CommandAck.decode(CommandAck.ok(12).encode())).isEqualTo(CommandAck.ok(12));
    CommandAck failed = CommandAck.failed("disk\nfull = yes");
    assertThat(CommandAck.decode(failed.encode())).isEqualTo(failed);
    assertThat(CommandAck.ok(12)).hasToString("ok 12");
    assertThat(CommandAck.failed("no answer")).hasToString("error no answer");
    assertThat(CommandAck.failed(null).message()).isEmpty();
  }

  @Test
  void malformedRecordsAreProtocolErrors() {
    byte[] legacyText = "commit all".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> OperatorCommand.decode(legacyText)).isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> OperatorCommand.decode("kind=DANCE\ntarget=all".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(ProtocolException.class);
    assertThatThrownBy(() -> CommandAck.decode("ok 5".getBytes(StandardCharsets.UTF_8))).isInstanceOf(ProtocolException.class);
  }

  @Test
  void aHandOffRoundTrips() throws Exception {
    Handoff h = new Handoff("id-1", 2, 3000, Handoff.Status.REQUESTED, -1, "");
    assertThat(Handoff.decode(h.encode())).isEqualTo(h);
    Handoff failed = h.with(Handoff.Status.FAILED, 17, "too slow");
    assertThat(Handoff.decode(failed.encode())).isEqualTo(failed);
  }
}
