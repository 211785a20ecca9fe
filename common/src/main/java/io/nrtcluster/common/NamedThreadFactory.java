package io.nrtcluster.common;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Daemon threads named {@code prefix-N}, so thread dumps show which node and job they serve. */
@Internal
public final class NamedThreadFactory implements ThreadFactory {
  private final String prefix;
  private final AtomicInteger counter = new AtomicInteger();

  public NamedThreadFactory(String prefix) {
    this.prefix = prefix;
  }

  @Override
  public Thread newThread(Runnable r) {
    Thread t = new Thread(r, prefix + "-" + counter.incrementAndGet());
    t.setDaemon(true);
    return t;
  }
}
