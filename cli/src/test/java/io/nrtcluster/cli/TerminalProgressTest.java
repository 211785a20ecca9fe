package io.nrtcluster.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The progress line of long commands: what it says, drawn in place on a terminal, nothing elsewhere. */
@Timeout(30)
class TerminalProgressTest {
  private static final long MIB = 1L << 20;
  private final AtomicLong bytes = new AtomicLong(100);
  private final AtomicLong files = new AtomicLong(2);

  @Test
  void theLineSaysFilesBytesRateAndTimeLeftCountedFromTheStart() {
    StringWriter sink = new StringWriter();
    TerminalProgress p = new TerminalProgress("restore", new PrintWriter(sink), false, 256 * MIB, 40, bytes::get,
        files::get, 0);
    bytes.addAndGet(64 * MIB);
    files.addAndGet(10);
    assertThat(p.line(2_000_000_000L)).isEqualTo("restore: 10/40 files, 64.0 MiB of 256.0 MiB, 32.0 MiB/s, 6 s left");
    bytes.addAndGet(192 * MIB);
    files.addAndGet(30);
    assertThat(p.line(8_000_000_000L)).as("done: no time left shown")
        .isEqualTo("restore: 40/40 files, 256.0 MiB of 256.0 MiB, 32.0 MiB/s");
    TerminalProgress noTotals = new TerminalProgress("verify version 7", new PrintWriter(sink), false, 0, 0,
        bytes::get, files::get, 0);
    bytes.addAndGet(3 * MIB);
    assertThat(noTotals.line(1_000_000_000L)).isEqualTo("verify version 7: 3.0 MiB, 3.0 MiB/s");
  }

  @Test
  void offATerminalNothingIsPrinted() {
    StringWriter sink = new StringWriter();
    try (TerminalProgress p = TerminalProgress.start("restore", new PrintWriter(sink), false, MIB, 1, bytes::get,
        files::get)) {
      bytes.addAndGet(MIB);
    }
    assertThat(sink.toString()).isEmpty();
    TerminalProgress.NONE.close();
  }

  @Test
  void nothingIsDrawnUntilSomethingMoved() {
    StringWriter sink = new StringWriter();
    TerminalProgress p = new TerminalProgress("bootstrap from the store", new PrintWriter(sink), false, 0, 0,
        bytes::get, files::get, 0);
    p.draw(1_000_000_000L);
    assertThat(sink.toString()).as("an index already on disk downloads nothing: no line").isEmpty();
    bytes.addAndGet(2 * MIB);
    files.addAndGet(3);
    p.draw(2_000_000_000L);
    assertThat(sink.toString()).isEqualTo("\rbootstrap from the store: 3 files, 2.0 MiB, 1.0 MiB/s");
  }

  @Test
  void onATerminalTheLineIsRedrawnInPlaceAndClearedAtTheEnd() {
    StringWriter sink = new StringWriter();
    TerminalProgress p = TerminalProgress.start("restore", new PrintWriter(sink), true, 4 * MIB, 4, bytes::get,
        files::get);
    bytes.addAndGet(MIB);
    files.incrementAndGet();
    await().atMost(Duration.ofSeconds(10)).until(() -> sink.toString().contains("restore: 1/4 files, 1.0 MiB of 4.0 MiB"));
    p.close();
    String out = sink.toString();
    assertThat(out).startsWith("\r").doesNotContain("\n").endsWith("\r");
    String last = out.substring(out.lastIndexOf('\r', out.length() - 2) + 1, out.length() - 1);
    assertThat(last).as("the clearing write").isBlank();
  }
}
