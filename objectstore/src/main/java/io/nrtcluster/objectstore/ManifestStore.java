package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The manifests of one index in the store: list, read, write, delete. A manifest is written only
 * after every file it names is in the store (by {@link BackupService}), so listing it means its
 * point can be restored unless the store itself lost or damaged an object, which a restore detects.
 * Stateless apart from its {@link BlobStore}; safe from many threads.
 */
@Experimental
public final class ManifestStore {
  private final BlobStore store;
  private final StoreLayout layout;

  public ManifestStore(BlobStore store, StoreLayout layout) {
    this.store = store;
    this.layout = layout;
  }

  public StoreLayout layout() {
    return layout;
  }

  public BlobStore blobStore() {
    return store;
  }

  /** Every manifest of the index, oldest (lowest version, then generation) first. */
  public List<ManifestId> list() throws IOException {
    return list(Deadline.NONE);
  }

  /** {@link #list()}, sending no request from {@code deadline} on. */
  List<ManifestId> list(Deadline deadline) throws IOException {
    List<ManifestId> ids = new ArrayList<>();
    for (ObjectInfo o : store.list(layout.manifestsPrefix(), deadline)) {
      layout.parseManifestKey(o.key(), o.lastModified()).ifPresent(ids::add);
    }
    Collections.sort(ids);
    return ids;
  }

  /** The newest manifest's id, if any. */
  public Optional<ManifestId> latestId() throws IOException {
    return latestId(Deadline.NONE);
  }

  /** {@link #latestId()}, sending no request from {@code deadline} on. */
  Optional<ManifestId> latestId(Deadline deadline) throws IOException {
    List<ManifestId> ids = list(deadline);
    return ids.isEmpty() ? Optional.empty() : Optional.of(ids.get(ids.size() - 1));
  }

  /**
   * The highest primary generation any manifest was written by, or -1 for none: a node restored from
   * this store and started as the first member of an empty cluster must take a generation above it,
   * so that no version number is reused with other contents.
   */
  public long highestPrimaryGen() throws IOException {
    return list().stream().mapToLong(ManifestId::primaryGen).max().orElse(-1);
  }

  /** The newest manifest for {@code version} (the highest generation that wrote it), if any. */
  public Optional<ManifestId> find(long version) throws IOException {
    ManifestId found = null;
    for (ManifestId id : list()) {
      if (id.version() == version) {
        found = id;
      }
    }
    return Optional.ofNullable(found);
  }

  /**
   * Reads and parses one manifest.
   *
   * @throws BackupNotFoundException it is not (or no longer) in the store
   * @throws CorruptBackupException it does not parse, or it is not the manifest its key says
   */
  public Manifest read(ManifestId id) throws IOException {
    byte[] bytes = store.get(id.key())
        .orElseThrow(() -> new BackupNotFoundException("manifest " + id.key() + " is not in the store"));
    Manifest m = ManifestCodec.decode(id.key(), bytes);
    if (m.version() != id.version() || m.primaryGen() != id.primaryGen()) {
      throw new CorruptBackupException(id.key(), "manifest " + id.key() + " holds version " + m.version()
          + " of primary generation " + m.primaryGen() + ", not what its key says");
    }
    return m;
  }

  /** The newest manifest. */
  public Manifest latest() throws IOException {
    return read(latestId().orElseThrow(() -> new BackupNotFoundException("no backup of " + layout.root())));
  }

  /**
   * Every manifest, read and summarized, oldest first; one GET per manifest. A manifest that does not
   * parse is a {@link CorruptBackupException} naming it; one removed meanwhile is left out.
   */
  public List<ManifestSummary> summaries() throws IOException {
    List<ManifestSummary> out = new ArrayList<>();
    for (ManifestId id : list()) {
      Manifest m;
      try {
        m = read(id);
      } catch (BackupNotFoundException e) {
        continue;
      }
      out.add(new ManifestSummary(id, m.files().size(), m.totalBytes(),
          Instant.ofEpochMilli(m.createdEpochMillis()), id.stored()));
    }
    return out;
  }

  /** Writes a manifest; call only once every file it names is in the store. */
  public ManifestId write(Manifest m) throws IOException {
    return write(m, Deadline.NONE);
  }

  /** {@link #write(Manifest)}, sending nothing from {@code deadline} on ({@link LeaseExpiredException}). */
  ManifestId write(Manifest m, Deadline deadline) throws IOException {
    String key = layout.manifestKey(m.version(), m.primaryGen());
    store.put(key, ManifestCodec.encode(m), deadline);
    return new ManifestId(m.version(), m.primaryGen(), key, null);
  }

  public void delete(ManifestId id) throws IOException {
    delete(id, Deadline.NONE);
  }

  /** {@link #delete(ManifestId)}, sending nothing from {@code deadline} on ({@link LeaseExpiredException}). */
  void delete(ManifestId id, Deadline deadline) throws IOException {
    store.delete(id.key(), deadline);
  }
}
