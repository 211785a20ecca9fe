package io.nrtcluster.objectstore;

import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterNode;

/**
 * What a {@link HostObjectStore} keeps for one index: its view of the host's store client (its own
 * counters), its place in the store, its backups, verification and damaged objects, how its
 * bootstrap ended, its meters, and the index once open. Closing it stops the backups, unregisters
 * the meters and closes the view (never the host's client).
 */
final class IndexStore implements RetentionSchedule.Target, VerificationSchedule.Target {
  final String name;
  final BlobStore store;
  final ManifestStore manifests;
  final PrimaryBackups backups;
  final BackupVerification verification;
  final BootstrapResult bootstrap;
  final ObjectStoreMeters meters;
  final NodeLog log;
  /** Set once the host opened it (or at its first role change, which may come first). */
  volatile ClusterNode node;

  IndexStore(String name, BlobStore store, ManifestStore manifests, PrimaryBackups backups,
      BackupVerification verification, BootstrapResult bootstrap, ObjectStoreMeters meters, NodeLog log) {
    this.name = name;
    this.store = store;
    this.manifests = manifests;
    this.backups = backups;
    this.verification = verification;
    this.bootstrap = bootstrap;
    this.meters = meters;
    this.log = log;
  }

  @Override
  public ClusterNode node() {
    return node;
  }

  @Override
  public ManifestStore manifests() {
    return manifests;
  }

  @Override
  public BackupVerification verification() {
    return verification;
  }

  @Override
  public NodeLog log() {
    return log;
  }

  void close() {
    try {
      if (backups != null) {
        backups.close();
      }
    } finally {
      if (meters != null) {
        meters.close();
      }
      store.close();
    }
  }
}
