package io.nrtcluster.election;

import io.nrtcluster.common.Experimental;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

/**
 * What a member says about its local files in its {@link MemberInfo}: whether it may lead, the
 * corrupt files it holds and has not replaced yet, and how many it found and quarantined since it
 * started.
 *
 * <p>Guarantees: a record naming a corrupt file is never {@link #eligible()} (the constructor
 * enforces it), so the election never ranks such a member; a member record written before this
 * existed decodes as {@link #CLEAN} (eligible), so old and new nodes share a cluster. At most
 * {@value #MAX_NAMES} names travel (the member record is read at every election step); more make
 * the record no less ineligible.
 *
 * @param eligible whether the member may rank in an election: false while it holds a corrupt file
 *     it could not replace, and while it has no index open (starting and verifying its files, promoting, closing)
 * @param corruptFiles the corrupt files not yet replaced by a copy from a primary, sorted, at most
 *     {@value #MAX_NAMES}; never null, unmodifiable
 * @param corruptFilesAtStart corrupt files found by the check at start (since the process started)
 * @param corruptFilesByScrub corrupt files found by the background scrub
 * @param quarantinedFiles files moved aside into the quarantine folder
 */
@Experimental
public record MemberIntegrity(boolean eligible, List<String> corruptFiles, long corruptFilesAtStart, long corruptFilesByScrub,
    long quarantinedFiles) {
  /** Nothing found, eligible: also what a record without these fields means. */
  public static final MemberIntegrity CLEAN = new MemberIntegrity(true, List.of(), 0, 0, 0);
  /** The most corrupt file names one member record carries. */
  public static final int MAX_NAMES = 16;

  private static final String ELIGIBLE = "eligible";
  private static final String CORRUPT_FILES = "corruptFiles";
  private static final String AT_START = "corruptFilesAtStart";
  private static final String BY_SCRUB = "corruptFilesByScrub";
  private static final String QUARANTINED = "quarantinedFiles";

  public MemberIntegrity {
    List<String> names = new ArrayList<>();
    for (String n : corruptFiles == null ? List.<String>of() : corruptFiles) {
      if (n == null || n.isEmpty() || n.contains(",") || n.length() > 255) {
        throw new IllegalArgumentException("corruptFiles must be file names (1-255 characters, no comma), got '" + n + "'");
      }
      if (names.size() < MAX_NAMES) {
        names.add(n);
      }
    }
    corruptFiles = List.copyOf(names);
    eligible = eligible && corruptFiles.isEmpty();
  }

  void encodeInto(Properties p) {
    p.setProperty(ELIGIBLE, Boolean.toString(eligible));
    if (!corruptFiles.isEmpty()) {
      p.setProperty(CORRUPT_FILES, String.join(",", corruptFiles));
    }
    p.setProperty(AT_START, Long.toString(corruptFilesAtStart));
    p.setProperty(BY_SCRUB, Long.toString(corruptFilesByScrub));
    p.setProperty(QUARANTINED, Long.toString(quarantinedFiles));
  }

  /** From a decoded member record; a missing field means what it meant before it existed. */
  static MemberIntegrity decodeFrom(Properties p) {
    String names = p.getProperty(CORRUPT_FILES, "");
    return new MemberIntegrity(
        Boolean.parseBoolean(p.getProperty(ELIGIBLE, "true")),
        names.isEmpty() ? List.of() : Arrays.asList(names.split(",")),
        Long.parseLong(p.getProperty(AT_START, "0")),
        Long.parseLong(p.getProperty(BY_SCRUB, "0")),
        Long.parseLong(p.getProperty(QUARANTINED, "0")));
  }
}
