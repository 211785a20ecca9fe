package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.time.Instant;

/**
 * One stored object as a listing or a HEAD request reports it.
 *
 * @param key the full key (prefix included)
 * @param size its length in bytes
 * @param lastModified when the store finished writing it, by the store's clock
 */
@Experimental
public record ObjectInfo(String key, long size, Instant lastModified) {}
