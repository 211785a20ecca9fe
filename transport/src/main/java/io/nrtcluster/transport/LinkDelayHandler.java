package io.nrtcluster.transport;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * Fault-injection point "linkDelay": holds every outbound write for the configured one-way delay
 * before it reaches the socket, and releases writes strictly in the order they were made, as a long
 * link does. Sits nearest the socket (before TLS), so handshakes, file data and closes are delayed
 * alike; a close waits behind the writes made before it. Bytes held here are not counted in the
 * channel's write backlog: what a sender may have in flight stays bounded by its own limits (file
 * streams by the receiver's window). Only in the pipeline when configured or switchable; with no
 * delay and nothing held it passes writes straight on.
 */
final class LinkDelayHandler extends ChannelDuplexHandler {
  private record Held(long dueNanos, Object msg, ChannelPromise promise) {}

  private final FaultStats faults;
  private final ArrayDeque<Held> held = new ArrayDeque<>();
  /** A close requested behind held writes; it runs once they are released. */
  private ChannelPromise pendingClose;
  private ScheduledFuture<?> timer;

  LinkDelayHandler(FaultStats faults) {
    this.faults = faults;
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    long delay = TimeUnit.MILLISECONDS.toNanos(faults.config().linkDelayMillis());
    if (pendingClose != null) {
      ReferenceCountUtil.release(msg);
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    if (delay == 0 && held.isEmpty()) {
      ctx.write(msg, promise);
      return;
    }
    // A delay lowered meanwhile must not let a write overtake one held before it.
    Held last = held.peekLast();
    long due = ctx.executor().ticker().nanoTime() + delay;
    held.add(new Held(last == null ? due : Math.max(due, last.dueNanos()), msg, promise));
    schedule(ctx);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (held.isEmpty()) {
      ctx.flush();
    }
    // Otherwise the release of the held writes flushes them.
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (held.isEmpty() || !ctx.channel().isActive()) {
      ctx.close(promise);
      return;
    }
    if (pendingClose == null) {
      pendingClose = promise;
    } else {
      pendingClose.addListener(f -> promise.trySuccess());
    }
  }

  private void schedule(ChannelHandlerContext ctx) {
    Held next = held.peekFirst();
    if (timer != null || next == null) {
      return;
    }
    long wait = Math.max(0, next.dueNanos() - ctx.executor().ticker().nanoTime());
    timer = ctx.executor().schedule(() -> release(ctx), wait, TimeUnit.NANOSECONDS);
  }

  private void release(ChannelHandlerContext ctx) {
    timer = null;
    long now = ctx.executor().ticker().nanoTime();
    boolean wrote = false;
    while (!held.isEmpty() && held.peekFirst().dueNanos() <= now) {
      Held h = held.pollFirst();
      ctx.write(h.msg(), h.promise());
      wrote = true;
    }
    if (wrote) {
      ctx.flush();
    }
    if (held.isEmpty() && pendingClose != null) {
      ChannelPromise p = pendingClose;
      pendingClose = null;
      ctx.close(p);
      return;
    }
    schedule(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    discardHeld();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    discardHeld();
  }

  /** The link is gone: held writes fail as writes to a closed socket would. */
  private void discardHeld() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
    Held h;
    while ((h = held.pollFirst()) != null) {
      ReferenceCountUtil.release(h.msg());
      h.promise().tryFailure(new ClosedChannelException());
    }
    if (pendingClose != null) {
      pendingClose.trySuccess();
      pendingClose = null;
    }
  }
}
