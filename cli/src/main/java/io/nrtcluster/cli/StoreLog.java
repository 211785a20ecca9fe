package io.nrtcluster.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.FileHandler;
import java.util.logging.Handler;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.slf4j.LoggerFactory;

/**
 * Sends the log of the S3-compatible store a command runs in its own JVM (S3Proxy, which logs through
 * SLF4J, and jclouds inside it, which logs through java.util.logging) to a file in the command's
 * output folder instead of the console: the console shows the command's own output only. S3Proxy
 * reports as errors what the chaos test does to it on purpose (a client cut off mid-upload, a header
 * it does not know), which a user would otherwise read as the command's failure.
 */
final class StoreLog {
  /** java.util.logging keeps loggers weakly: held here so the handler stays attached. */
  private static final Logger JCLOUDS = Logger.getLogger("org.jclouds");
  private static final String[] SLF4J_LOGGERS = {"org.gaul", "org.jclouds"};

  private StoreLog() {}

  /** From now on, the store's log goes to {@code file} only (appended; the folder must exist). */
  static synchronized void toFile(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    for (Handler h : JCLOUDS.getHandlers()) {
      JCLOUDS.removeHandler(h);
      h.close();
    }
    FileHandler jul = new FileHandler(file.toAbsolutePath().toString(), true);
    jul.setFormatter(new SimpleFormatter());
    JCLOUDS.addHandler(jul);
    JCLOUDS.setUseParentHandlers(false);
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      PatternLayoutEncoder encoder = new PatternLayoutEncoder();
      encoder.setContext(context);
      encoder.setPattern("%d{HH:mm:ss.SSS} %-5level %logger{0} [%thread] %msg%n");
      encoder.start();
      FileAppender<ILoggingEvent> appender = new FileAppender<>();
      appender.setContext(context);
      appender.setName("store-log");
      appender.setFile(file.toAbsolutePath().toString());
      appender.setAppend(true);
      appender.setEncoder(encoder);
      appender.start();
      for (String name : SLF4J_LOGGERS) {
        var l = context.getLogger(name);
        l.detachAndStopAllAppenders();
        l.addAppender(appender);
        l.setAdditive(false);
        l.setLevel(Level.INFO);
      }
    }
  }
}
