package io.nrtcluster.common;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;

/**
 * A {@link PrintStream} that turns each printed line into one TRACE line of an SLF4J logger, prefixed
 * with the node's identity. Lucene's replication classes report through a {@code PrintStream}; this
 * routes them into the application's logging instead of stdout. Bytes are dropped at once when TRACE
 * is off, but whatever a caller formats before printing is still paid for: the nodes therefore
 * override Lucene's {@code message} and leave this stream only the rare stack traces Lucene prints.
 */
public final class Slf4jPrintStream extends PrintStream {

  public Slf4jPrintStream(NodeLog log) {
    super(new LineSink(log), true, StandardCharsets.UTF_8);
  }

  private static final class LineSink extends OutputStream {
    private final NodeLog log;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

    LineSink(NodeLog log) {
      this.log = log;
    }

    @Override
    public synchronized void write(int b) {
      if (!log.isTraceEnabled()) {
        return;
      }
      if (b == '\n') {
        log.trace("lucene: {}", line.toString(StandardCharsets.UTF_8));
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
