package io.nrtcluster.replica;

import io.nrtcluster.transport.FaultStats;

/**
 * The wire bit flips (the transport's fault point) read into one copied file, across every stream
 * that fed it (a resumed or taken-over file has several), until the file's fate is known: it failed
 * its checksum (detected), was thrown away unfinished (discarded) or passed (undetected). Reported to
 * the transport's {@link FaultStats} exactly once per outcome, so every injected flip is accounted
 * for. Used under the copy job's monitor only.
 */
final class FileFlips {
  private final FaultStats ledger;
  private long count;

  FileFlips(FaultStats ledger) {
    this.ledger = ledger;
  }

  void add(long n) {
    count += n;
  }

  /** Flips in the file's bytes so far whose fate is not reported yet. */
  long count() {
    return count;
  }

  /** Reports the fate of the flips read so far; returns how many there were. */
  long resolve(FaultStats.FlipOutcome outcome) {
    long n = count;
    count = 0;
    ledger.flipsResolved(outcome, n);
    return n;
  }
}
