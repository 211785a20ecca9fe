package io.nrtcluster.objectstore;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Experimental;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;

/**
 * Where one index's backups live in a bucket, all under {@code <prefix><cluster>/<index>/}:
 *
 * <ul>
 *   <li>{@code files/<name>--<length>-<checksum>}: each index file, stored once and never rewritten
 *       with other bytes (the key is the contents' identity, see {@link FileEntry}); flat, so that
 *       stores that map keys to a file system never see a key that is also a directory;
 *   <li>{@code manifests/<version>-<primaryGen>}: one small manifest per backed-up point, both numbers
 *       zero-padded to 19 digits so that key order is (version, generation) order;
 *   <li>{@code pending/<id>}: a backup under way, naming the files it will reference;
 *   <li>{@code sweeps/<id>}: a retention sweep under way;
 *   <li>{@code retention/last-run}: the record of the last sweep ({@link RetentionRun}), which tells
 *       whichever node leads the index whether a sweep is due.
 * </ul>
 *
 * See {@link RetentionSweeper} for why the last two exist.
 */
@Experimental
public final class StoreLayout {
  private final String root;

  private StoreLayout(String root) {
    this.root = root;
  }

  /** The layout of one index: {@code prefix} as normalized by {@link ObjectStoreConfig}. */
  public static StoreLayout of(String prefix, String cluster, String index) {
    Checks.safeName("cluster", cluster);
    Checks.safeName("index", index);
    return new StoreLayout(prefix + cluster + "/" + index + "/");
  }

  public String root() {
    return root;
  }

  public String filesPrefix() {
    return root + "files/";
  }

  public String manifestsPrefix() {
    return root + "manifests/";
  }

  public String pendingPrefix() {
    return root + "pending/";
  }

  public String sweepsPrefix() {
    return root + "sweeps/";
  }

  /** The record of the index's last retention sweep ({@link RetentionRun}); no sweep ever deletes it. */
  public String retentionRecordKey() {
    return root + "retention/last-run";
  }

  public String fileKey(FileEntry f) {
    return filesPrefix() + f.name() + "--" + f.length() + "-" + String.format(Locale.ROOT, "%08x", f.checksum());
  }

  public String manifestKey(long version, long primaryGen) {
    return manifestsPrefix() + String.format(Locale.ROOT, "%019d-%019d", version, primaryGen);
  }

  public String pendingKey(String id) {
    return pendingPrefix() + id;
  }

  public String sweepKey(String id) {
    return sweepsPrefix() + id;
  }

  /** The manifest a key names, or empty for a key that is not a manifest's (ignored, never deleted). */
  public Optional<ManifestId> parseManifestKey(String key) {
    return parseManifestKey(key, null);
  }

  /** As {@link #parseManifestKey(String)}, with the time the store wrote it. */
  public Optional<ManifestId> parseManifestKey(String key, Instant stored) {
    if (!key.startsWith(manifestsPrefix())) {
      return Optional.empty();
    }
    String rest = key.substring(manifestsPrefix().length());
    if (!rest.matches("\\d{19}-\\d{19}")) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ManifestId(Long.parseLong(rest.substring(0, 19)), Long.parseLong(rest.substring(20)), key, stored));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
