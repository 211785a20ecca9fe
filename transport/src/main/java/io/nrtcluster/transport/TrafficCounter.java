package io.nrtcluster.transport;

import java.util.concurrent.atomic.LongAdder;

/** A running count of bytes sent and received; written by I/O threads, read by anyone. */
final class TrafficCounter {
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();

  void sent(long bytes) {
    sent.add(bytes);
  }

  void received(long bytes) {
    received.add(bytes);
  }

  Traffic snapshot() {
    return new Traffic(sent.sum(), received.sum());
  }
}
