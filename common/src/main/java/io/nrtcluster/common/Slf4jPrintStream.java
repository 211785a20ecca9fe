package io.nrtcluster.common;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link PrintStream} that turns each printed line into one TRACE line of an SLF4J logger, prefixed
 * with the node's identity. Lucene's replication classes report through a {@code PrintStream}; this
 * routes them into the application's logging instead of stdout. Bytes are dropped at once when TRACE
 * is off, but whatever a caller formats before printing is still paid for: the nodes therefore
 * override Lucene's {@code message} and leave this stream only the rare stack traces Lucene prints.
 *
 * <p>A {@code PrintStream} holds about 24 KiB of buffers from the start (its writer's and its
 * encoder's); a stream per index would be a large share of an idle index's heap. So the nodes
 * share {@link #shared()}, whose lines name the thread that printed them (a thread of a host's pool
 * is named after the index whose task it runs), and Lucene's message just before a stack trace
 * names the node.
 */
@Internal
public final class Slf4jPrintStream extends PrintStream {
  private static final Slf4jPrintStream SHARED = new Slf4jPrintStream(
      new NodeLog(LoggerFactory.getLogger("io.nrtcluster.lucene"), "lucene", () -> -1), true);

  public Slf4jPrintStream(NodeLog log) {
    this(log, false);
  }

  private Slf4jPrintStream(NodeLog log, boolean namesThreads) {
    super(new LineSink(log, namesThreads), true, StandardCharsets.UTF_8);
  }

  /** The one stream every node of the process shares. */
  public static Slf4jPrintStream shared() {
    return SHARED;
  }

  private static final class LineSink extends OutputStream {
    private final NodeLog log;
    private final boolean namesThreads;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

    LineSink(NodeLog log, boolean namesThreads) {
      this.log = log;
      this.namesThreads = namesThreads;
    }

    @Override
    public synchronized void write(int b) {
      if (!log.isTraceEnabled()) {
        return;
      }
      if (b == '\n') {
        if (namesThreads) {
          log.trace("lucene [{}]: {}", Thread.currentThread().getName(), line.toString(StandardCharsets.UTF_8));
        } else {
          log.trace("lucene: {}", line.toString(StandardCharsets.UTF_8));
        }
        line.reset();
      } else if (line.size() < 64 * 1024) {
        line.write(b);
      }
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      if (!log.isTraceEnabled()) {
        return;
      }
      for (int i = off; i < off + len; i++) {
        write(b[i]);
      }
    }
  }
}
