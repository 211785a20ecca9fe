package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.time.Instant;

/**
 * One backed-up point as a status listing shows it ({@code bin/nrt backup status}, to come).
 *
 * @param id the manifest
 * @param files how many files the point references
 * @param bytes their total size (shared with other points: files are stored once)
 * @param created when the backup was made, by the writer's clock
 * @param stored when the store wrote the manifest, by the store's clock
 */
@Experimental
public record ManifestSummary(ManifestId id, int files, long bytes, Instant created, Instant stored) {}
