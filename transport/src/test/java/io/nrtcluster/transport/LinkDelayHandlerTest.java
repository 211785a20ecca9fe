package io.nrtcluster.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The "linkDelay" fault point: every write leaves after the delay, in order, and it can be switched. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LinkDelayHandlerTest {
  private static ByteBuf frame(int n) {
    return Unpooled.copyInt(n);
  }

  private static List<Integer> drain(EmbeddedChannel ch) {
    List<Integer> out = new ArrayList<>();
    ByteBuf b;
    while ((b = ch.readOutbound()) != null) {
      out.add(b.readInt());
      b.release();
    }
    return out;
  }

  private static EmbeddedChannel channel(FaultStats stats) {
    EmbeddedChannel ch = new EmbeddedChannel();
    ch.freezeTime();
    ch.pipeline().addLast(new LinkDelayHandler(stats));
    return ch;
  }

  @Test
  void holdsEveryWriteForTheDelayAndKeepsTheirOrder() {
    FaultStats stats = new FaultStats(FaultInjection.builder().linkDelayMillis(25).build());
    EmbeddedChannel ch = channel(stats);
    ch.writeAndFlush(frame(1));
    ch.advanceTimeBy(10, TimeUnit.MILLISECONDS);
    ChannelFuture second = ch.writeAndFlush(frame(2));
    ch.write(frame(3));
    ch.runPendingTasks();
    ch.runScheduledPendingTasks();
    assertThat(drain(ch)).as("nothing leaves before its delay").isEmpty();
    assertThat(second.isDone()).isFalse();

    ch.advanceTimeBy(15, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(drain(ch)).as("25 ms after the first write: only the first").containsExactly(1);

    ch.advanceTimeBy(10, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(drain(ch)).as("then the others, in the order written").containsExactly(2, 3);
    assertThat(second.isSuccess()).isTrue();
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }

  @Test
  void aCloseWaitsBehindTheWritesMadeBeforeIt() {
    FaultStats stats = new FaultStats(FaultInjection.builder().linkDelayMillis(50).build());
    EmbeddedChannel ch = channel(stats);
    ChannelFuture write = ch.writeAndFlush(frame(1));
    // Through the pipeline: EmbeddedChannel's own close() would also cancel the scheduled release.
    ch.pipeline().close();
    ch.runPendingTasks();
    assertThat(ch.isOpen()).as("the close is held behind the write").isTrue();
    ch.advanceTimeBy(50, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(write.isSuccess()).as("the write went out before the close: %s %s", write.isDone(), write.cause()).isTrue();
    assertThat(ch.isOpen()).isFalse();
    ch.finishAndReleaseAll();
  }

  @Test
  void writesHeldWhenTheChannelClosesAreReleasedAndFail() {
    FaultStats stats = new FaultStats(FaultInjection.builder().linkDelayMillis(50).build());
    EmbeddedChannel ch = channel(stats);
    ByteBuf held = frame(1);
    ChannelFuture f = ch.writeAndFlush(held);
    ch.pipeline().fireChannelInactive();
    assertThat(held.refCnt()).isZero();
    assertThat(f.isDone() && !f.isSuccess()).isTrue();
    ch.finishAndReleaseAll();
  }

  @Test
  void switchedOffByDefaultAndOnAndOffWhileTheChannelRuns() {
    assertThat(FaultInjection.NONE.delaysLinks()).isFalse();
    assertThat(FaultInjection.builder().build().delaysLinks()).isFalse();
    FaultStats stats = new FaultStats(FaultInjection.builder().switchable(true).build());
    EmbeddedChannel ch = channel(stats);
    ch.writeAndFlush(frame(1));
    assertThat(drain(ch)).as("no delay configured: straight through").containsExactly(1);

    stats.updateLinkDelay(stats.config().withLinkDelay(30));
    ch.writeAndFlush(frame(2));
    assertThat(drain(ch)).isEmpty();
    stats.updateLinkDelay(stats.config().withLinkDelay(0));
    ch.writeAndFlush(frame(3));
    assertThat(drain(ch)).as("a write after the delay was lowered never overtakes one held").isEmpty();
    ch.advanceTimeBy(30, TimeUnit.MILLISECONDS);
    ch.runScheduledPendingTasks();
    assertThat(drain(ch)).containsExactly(2, 3);
    ch.writeAndFlush(frame(4));
    assertThat(drain(ch)).containsExactly(4);
    assertThat(ch.finishAndReleaseAll()).isFalse();
  }
}
