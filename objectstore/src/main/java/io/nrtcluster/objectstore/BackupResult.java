package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.time.Duration;

/**
 * A completed backup: the manifest it wrote, what crossed the network and what was already there.
 *
 * @param manifest the manifest written (last, after every file)
 * @param filesUploaded files sent because the store lacked them
 * @param bytesUploaded their bytes
 * @param filesReused files the store already held (from earlier backups)
 * @param took from the start of the backup to its manifest
 */
@Experimental
public record BackupResult(ManifestId manifest, int filesUploaded, long bytesUploaded, int filesReused, Duration took) {}
