package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The fault-injection point that drops a connection after a number of file-data bytes. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConnectionDropHandlerTest {
  private static FaultStats stats(long after, int maxDrops) {
    return new FaultStats(FaultInjection.builder().dropAfterFileBytes(after).maxDrops(maxDrops).build());
  }

  private static FileChunk chunk(long offset, int bytes) {
    return new FileChunk(1, offset, Unpooled.wrappedBuffer(new byte[bytes]));
  }

  @Test
  void passesFileDataUpToTheMarkThenClosesAndDiscardsTheRest() {
    FaultStats stats = stats(10_000, 0);
    EmbeddedChannel ch = new EmbeddedChannel(new ConnectionDropHandler(stats));
    long delivered = 0;
    for (int i = 0; i < 3; i++) {
      ch.writeInbound(chunk(i * 3000L, 3000));
      FileChunk out = ch.readInbound();
      delivered += out.content().readableBytes();
      out.release();
    }
    assertThat(delivered).isEqualTo(9000);
    assertThat(ch.isOpen()).isTrue();
    ch.writeInbound(new Message.Ping(7));
    assertThat(ch.<Object>readInbound()).as("other messages pass and do not count").isInstanceOf(Message.Ping.class);

    FileChunk crossing = chunk(9000, 3000);
    ch.writeInbound(crossing);
    assertThat(ch.<Object>readInbound()).as("the chunk that crosses the mark is not delivered").isNull();
    assertThat(crossing.refCnt()).as("and released").isZero();
    assertThat(ch.isOpen()).isFalse();
    assertThat(stats.connectionsDropped()).isEqualTo(1);
    assertThat(stats.dropPointFileBytes()).as("every file byte that arrived, the discarded chunk included").isEqualTo(12_000);
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void maxDropsBoundsTheDropsOverAllConnections() {
    FaultStats stats = stats(1000, 3);
    int closed = 0;
    for (int c = 0; c < 5; c++) {
      EmbeddedChannel ch = new EmbeddedChannel(new ConnectionDropHandler(stats));
      for (int i = 0; i < 3 && ch.isOpen(); i++) {
        ch.writeInbound(chunk(i * 600L, 600));
        FileChunk out = ch.readInbound();
        if (out != null) {
          out.release();
        }
      }
      closed += ch.isOpen() ? 0 : 1;
      ch.finishAndReleaseAll();
    }
    assertThat(closed).isEqualTo(3);
    assertThat(stats.connectionsDropped()).isEqualTo(3);
  }

  @Test
  void offByDefault() {
    assertThat(FaultInjection.NONE.dropsConnections()).isFalse();
    assertThat(FaultInjection.builder().build().dropsConnections()).isFalse();
  }

  @Test
  void switchedOnAtRunTimeItDropsAndMaxDropsCountsFromTheSwitch() {
    FaultStats stats = new FaultStats(FaultInjection.builder().switchable(true).build());
    EmbeddedChannel before = new EmbeddedChannel(new ConnectionDropHandler(stats));
    before.writeInbound(chunk(0, 5000));
    FileChunk passed = before.readInbound();
    passed.release();
    assertThat(before.isOpen()).as("off: nothing dropped").isTrue();

    stats.updateDrops(stats.config().withDrops(1000, 1));
    before.writeInbound(chunk(5000, 10));
    assertThat(before.isOpen()).as("on: a connection already past the mark drops at its next file data").isFalse();
    EmbeddedChannel second = new EmbeddedChannel(new ConnectionDropHandler(stats));
    second.writeInbound(chunk(0, 2000));
    assertThat(second.isOpen()).as("maxDrops 1 since the switch").isTrue();
    second.finishAndReleaseAll();

    stats.updateDrops(stats.config().withDrops(1000, 1));
    EmbeddedChannel third = new EmbeddedChannel(new ConnectionDropHandler(stats));
    third.writeInbound(chunk(0, 2000));
    assertThat(third.isOpen()).as("a new switch counts maxDrops afresh").isFalse();

    stats.updateDrops(stats.config().withDrops(0, 0));
    EmbeddedChannel off = new EmbeddedChannel(new ConnectionDropHandler(stats));
    off.writeInbound(chunk(0, 5000));
    assertThat(off.isOpen()).as("switched off again").isTrue();
    off.finishAndReleaseAll();
    before.finishAndReleaseAll();
    third.finishAndReleaseAll();
  }
}
