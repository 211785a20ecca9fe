package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.util.List;

/**
 * What one retention sweep did.
 *
 * @param kept the manifests kept, oldest first
 * @param deletedManifests the manifests deleted
 * @param filesDeleted files deleted because no kept manifest and no backup under way names them
 * @param bytesDeleted their bytes
 * @param staleMarkersDeleted markers of backups and sweeps that died (past their lease)
 * @param complete false when the sweep stopped at its lease before deleting everything it could; the next sweep goes on
 */
@Experimental
public record SweepResult(
    List<ManifestId> kept,
    List<ManifestId> deletedManifests,
    int filesDeleted,
    long bytesDeleted,
    int staleMarkersDeleted,
    boolean complete) {}
