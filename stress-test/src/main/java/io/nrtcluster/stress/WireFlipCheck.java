package io.nrtcluster.stress;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The verdict rule for bit flips on the wire: every flip a node process injected into the file data
 * it received is accounted for, as detected (the file it was read into failed its checksum) or
 * discarded (released unread, or read into an unfinished file that was thrown away), and none was
 * undetected (read into a file that passed its checksum).
 *
 * <p>Each process incarnation is judged on its last status sample, a consistent snapshot of its
 * transport's counters ({@code injected == detected + discarded + undetected + pending}). A process
 * still running at the end is sampled after the final check, once it copies nothing: a flip still
 * pending there is one that some path lost track of, so it counts as unaccounted. A process that
 * ended (killed, crashed or restarted) took its pending flips with it: their chunks died with its
 * memory and their partly copied temp files are deleted when the node starts again (Lucene deletes
 * unknown files at start; the final audit's unreferenced-files rule catches any left behind), so they
 * count as discarded.
 */
final class WireFlipCheck {
  private WireFlipCheck() {}

  /**
   * The last counters of one process incarnation.
   *
   * @param process "node/incarnation"
   * @param ended the process is gone (its pending flips died with it); false: it was sampled after
   *     the final check
   */
  record Sample(String process, long injected, long detected, long discarded, long undetected, long pending,
      boolean ended) {}

  /**
   * Totals over every process.
   *
   * @param discarded discarded flips, those pending in ended processes included
   * @param unaccounted flips not placed, plus flips still pending after the final check
   * @param problems one line per process whose flips do not add up or that accepted corrupt bytes
   */
  record Result(long injected, long detected, long discarded, long undetected, long unaccounted, List<String> problems) {
    boolean clean() {
      return unaccounted == 0 && undetected == 0;
    }
  }

  static Result check(Collection<Sample> samples) {
    long injected = 0;
    long detected = 0;
    long discarded = 0;
    long undetected = 0;
    long unaccounted = 0;
    List<String> problems = new ArrayList<>();
    for (Sample s : samples.stream().sorted(Comparator.comparing(Sample::process)).toList()) {
      long diedWith = s.ended() ? s.pending() : 0;
      long missing = s.injected() - s.detected() - s.discarded() - s.undetected() - diedWith;
      injected += s.injected();
      detected += s.detected();
      discarded += s.discarded() + diedWith;
      undetected += s.undetected();
      unaccounted += Math.abs(missing);
      String who = "N" + s.process().replace("/", " (process ") + ")";
      if (missing != 0) {
        problems.add(String.format(Locale.ROOT,
            "%s: %d of %d injected bit flips unaccounted (detected %d, discarded %d, undetected %d, pending %d %s)",
            who, missing, s.injected(), s.detected(), s.discarded(), s.undetected(), s.pending(),
            s.ended() ? "when it ended" : "after the final check"));
      }
      if (s.undetected() > 0) {
        problems.add(who + ": " + s.undetected() + " bit flips read into files that passed their checksum (corrupt bytes accepted)");
      }
    }
    return new Result(injected, detected, discarded, undetected, unaccounted, List.copyOf(problems));
  }
}
