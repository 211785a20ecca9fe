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
}
