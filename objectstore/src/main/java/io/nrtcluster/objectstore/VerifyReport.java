package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.time.Duration;
import java.util.List;

/**
 * What one {@link BackupVerifier} run found for one manifest. Immutable.
 *
 * @param manifest the manifest verified
 * @param objectsChecked how many objects (the manifest's files) were read
 * @param bytesRead the bytes of them read from the store (an object's last attempt, when one was retried)
 * @param took from the start of the run to its end, pacing included
 * @param damage every object that failed, in the manifest's file order; empty when the backup is intact
 */
@Experimental
public record VerifyReport(ManifestId manifest, int objectsChecked, long bytesRead, Duration took, List<Damage> damage) {
  /** How a stored object failed. */
  public enum Problem {
    /** The store does not hold the object. */
    MISSING,
    /** The object's length is not the one the manifest records. */
    WRONG_LENGTH,
    /** The CRC32 of its bytes differs from its footer's checksum or from the manifest's. */
    WRONG_CHECKSUM,
    /** Its last 16 bytes are not a Lucene {@code CodecUtil} footer (magic, algorithm 0, a 32-bit checksum). */
    BAD_FOOTER
  }

  /**
   * One object that failed.
   *
   * @param key its store key
   * @param fileName the index file it holds
   * @param problem what is wrong
   * @param detail the numbers that disagree, for people
   */
  public record Damage(String key, String fileName, Problem problem, String detail) {
    public Damage {
      Checks.notBlank("key", key);
      Checks.notBlank("fileName", fileName);
      Checks.notNull("problem", problem);
      Checks.notNull("detail", detail);
    }
  }

  public VerifyReport {
    Checks.notNull("manifest", manifest);
    Checks.inRange("objectsChecked", objectsChecked, 0, Integer.MAX_VALUE);
    Checks.inRange("bytesRead", bytesRead, 0, Long.MAX_VALUE);
    Checks.notNull("took", took);
    damage = List.copyOf(Checks.notNull("damage", damage));
  }

  /** True when every object the manifest names is present and matches it. */
  public boolean intact() {
    return damage.isEmpty();
  }

  /** The keys of the damaged objects. */
  public List<String> damagedKeys() {
    return damage.stream().map(Damage::key).toList();
  }
}
