package io.nrtcluster.cli;

import io.nrtcluster.objectstore.BackupMode;
import io.nrtcluster.objectstore.BackupVerifier;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.RetentionPolicy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * {@code nrt node}'s object store: given {@code --backup-bucket}, the node opens its indexes through a
 * {@link io.nrtcluster.objectstore.HostObjectStore} (bootstrap from the newest backup, automatic
 * backups while it leads, retention sweeps, verification of the newest backup). A picocli argument group: the other options need the bucket.
 */
final class NodeBackupOptions {
  /** {@code --backup-mode}: which points the indexes this node leads back up. */
  enum Mode {
    commit, point, off
  }

  @Option(names = "--backup-bucket", required = true, paramLabel = "B",
      description = "S3 bucket of the indexes' backups: bootstrap from it, back up to it (AWS S3 or any S3-compatible store).")
  String bucket;

  @Option(names = "--backup-prefix", defaultValue = "", paramLabel = "P", description = "Key prefix in the bucket (default: none).")
  String prefix;

  @Option(names = "--backup-endpoint", paramLabel = "URL",
      description = "Endpoint of an S3-compatible store (http(s)://host:port); omit for AWS S3.")
  URI endpoint;

  @Option(names = "--backup-region", defaultValue = "us-east-1", paramLabel = "R",
      description = "Signing region (default: ${DEFAULT-VALUE}).")
  String region;

  @Option(names = "--backup-path-style", description = "Path-style addressing, which most S3-compatible stores need.")
  boolean pathStyle;

  @Option(names = "--backup-access-key", paramLabel = "ID",
      description = "Access key id; with --backup-secret-key-file. Without both: the AWS SDK's default chain.")
  String accessKey;

  @Option(names = "--backup-secret-key-file", paramLabel = "FILE", description = "File holding the secret key for --backup-access-key.")
  Path secretKeyFile;

  @Option(names = "--backup-mode", defaultValue = "commit", paramLabel = "commit|point|off",
      description = "Back up each commit (default), each published point, or nothing (bootstrap only).")
  Mode mode;

  @Option(names = "--bootstrap-from-store", negatable = true, defaultValue = "true", fallbackValue = "true",
      description = "Restore the newest backup before an index opens when its directory is empty or older (default: on).")
  boolean bootstrap;

  @Option(names = "--retain-last", paramLabel = "N",
      description = "Sweep backups, keeping the newest N and those newer than --retain-newer-than (default: keep all).")
  Integer retainLast;

  @Option(names = "--retain-newer-than", paramLabel = "TIME", defaultValue = "0s", converter = DurationConverter.class,
      description = "With --retain-last: also keep every backup younger than this (default: ${DEFAULT-VALUE}).")
  Duration retainNewerThan;

  @Option(names = "--retention-interval", paramLabel = "TIME", defaultValue = "10m", converter = DurationConverter.class,
      description = "With --retain-last: sweep whenever the last sweep, by whichever node led the index, is this old (default: ${DEFAULT-VALUE}).")
  Duration retentionInterval;

  @Option(names = "--verify-interval", paramLabel = "TIME", defaultValue = "1h", converter = DurationConverter.class,
      description = "How often the newest backup of each index is read back from the store and checked against its "
          + "Lucene checksums; a damaged object is logged, counted and uploaded again by the next backup. 0s turns it "
          + "off; at most 168h (default: ${DEFAULT-VALUE}).")
  Duration verifyInterval;

  @Option(names = "--verify-rate", paramLabel = "BYTES_PER_SEC", defaultValue = "32MiB", converter = ByteSizeConverter.class,
      description = "Most bytes per second those checks read, e.g. 32MiB or 512KiB: 0 for no limit, else at least 64KiB "
          + "(default: ${DEFAULT-VALUE}).")
  long verifyRate;

  /** The host's store settings; an {@link IllegalArgumentException} naming a bad value. */
  HostStoreConfig config() throws IOException {
    if (verifyInterval.compareTo(Duration.ofDays(7)) > 0) {
      throw new IllegalArgumentException("--verify-interval must be at most 168h (0s turns it off), got "
          + Units.human(verifyInterval));
    }
    if (verifyRate != BackupVerifier.UNLIMITED && verifyRate < BackupVerifier.MIN_BYTES_PER_SECOND) {
      throw new IllegalArgumentException("--verify-rate must be 0 (no limit) or at least "
          + Units.bytes(BackupVerifier.MIN_BYTES_PER_SECOND) + " per second, got " + Units.bytes(verifyRate));
    }
    if (retainLast == null && !retainNewerThan.isZero()) {
      throw new IllegalArgumentException("--retain-newer-than needs --retain-last");
    }
    if (retainLast != null && mode == Mode.off) {
      throw new IllegalArgumentException("--retain-last needs backups: not with --backup-mode off");
    }
    RetentionPolicy retention = retainLast == null ? null : new RetentionPolicy(retainLast, retainNewerThan);
    return HostStoreConfig.builder()
        .store(ObjectStoreOptions.storeConfig(bucket, prefix, endpoint, region, pathStyle, accessKey, secretKeyFile))
        .backups(mode != Mode.off).mode(mode == Mode.point ? BackupMode.EVERY_POINT : BackupMode.EVERY_COMMIT)
        .bootstrap(bootstrap).retention(retention).retentionInterval(retentionInterval)
        .verifyInterval(verifyInterval).verifyBytesPerSecond(verifyRate).build();
  }
}
