package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.time.Instant;
import java.util.Comparator;

/**
 * Names one manifest without reading it: the point's version and the primary generation that wrote
 * it. Ordered by version, then generation, so after a failover that reused a version number with other
 * contents the newer primary's manifest sorts last.
 *
 * @param version the point's version
 * @param primaryGen the generation of the primary that wrote it
 * @param key its store key
 * @param stored when the store wrote it, by the store's clock (from a listing; null when not known)
 */
@Experimental
public record ManifestId(long version, long primaryGen, String key, Instant stored) implements Comparable<ManifestId> {
  private static final Comparator<ManifestId> ORDER =
      Comparator.comparingLong(ManifestId::version).thenComparingLong(ManifestId::primaryGen);

  @Override
  public int compareTo(ManifestId o) {
    return ORDER.compare(this, o);
  }
}
