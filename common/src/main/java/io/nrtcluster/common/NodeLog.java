package io.nrtcluster.common;

import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * A logger that starts every line with the node's identity and current primary generation ({@code
 * "R2 gen=5: ..."}), so lines from several nodes in one process or one file can be told apart.
 * Arguments stay parameterized; nothing is formatted unless the level is enabled.
 */
@Stable
public final class NodeLog {
  private static final String PREFIX = "{} gen={}: ";

  private final Logger log;
  private final String name;
  private final LongSupplier generation;

  /**
   * Logs through {@code log} as {@code name} (for example {@code R2}), with the generation {@code
   * generation} returns at the moment of each line.
   */
  public NodeLog(Logger log, String name, LongSupplier generation) {
    this.log = log;
    this.name = name;
    this.generation = generation;
  }

  /** The node's identity this log starts its lines with. */
  public String name() {
    return name;
  }

  /** Whether DEBUG lines are written (to skip building costly arguments). */
  public boolean isDebugEnabled() {
    return log.isDebugEnabled();
  }

  /** Whether TRACE lines are written (to skip building costly arguments). */
  public boolean isTraceEnabled() {
    return log.isTraceEnabled();
  }

  /** A TRACE line: SLF4J's {@code format} with {@code args}, after the node's prefix. */
  public void trace(String format, Object... args) {
    if (log.isTraceEnabled()) {
      log.trace(PREFIX + format, prefixed(args));
    }
  }

  /**
   * One progress message of Lucene's replication classes ({@code Node.message}), at TRACE with the
   * thread that reported it; nothing is formatted unless TRACE is on.
   */
  public void lucene(String message) {
    if (log.isTraceEnabled()) {
      trace("lucene [{}]: {}", Thread.currentThread().getName(), message);
    }
  }

  /** A DEBUG line: SLF4J's {@code format} with {@code args}, after the node's prefix. */
  public void debug(String format, Object... args) {
    if (log.isDebugEnabled()) {
      log.debug(PREFIX + format, prefixed(args));
    }
  }

  /** An INFO line: SLF4J's {@code format} with {@code args}, after the node's prefix. */
  public void info(String format, Object... args) {
    if (log.isInfoEnabled()) {
      log.info(PREFIX + format, prefixed(args));
    }
  }

  /**
   * A WARN line: SLF4J's {@code format} with {@code args} (a last throwable is logged with its stack),
   * after the node's prefix.
   */
  public void warn(String format, Object... args) {
    if (log.isWarnEnabled()) {
      log.warn(PREFIX + format, prefixed(args));
    }
  }

  /**
   * An ERROR line: SLF4J's {@code format} with {@code args} (a last throwable is logged with its
   * stack), after the node's prefix.
   */
  public void error(String format, Object... args) {
    if (log.isErrorEnabled()) {
      log.error(PREFIX + format, prefixed(args));
    }
  }

  private Object[] prefixed(Object[] args) {
    Object[] all = new Object[args.length + 2];
    all[0] = name;
    all[1] = generation.getAsLong();
    System.arraycopy(args, 0, all, 2, args.length);
    return all;
  }
}
