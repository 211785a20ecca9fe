package io.nrtcluster.primary;

import io.nrtcluster.common.Experimental;

/**
 * What a primary's copy-state leases did so far (see {@link PrimaryConfig#copyStateLease()}). A
 * lease starts when a replica's connection drops in the middle of a copy; it ends when the replica
 * reconnects and resumes ({@code resumed}), when it runs out ({@code expired}), or when a newer
 * lease needs its room ({@code evicted}, past {@link PrimaryConfig#maxCopyStateLeases()} or {@link
 * PrimaryConfig#maxLeasedBytes()}), or when the primary closes.
 *
 * @param held leases held now
 * @param started leases started
 * @param resumed copy-states their replica came back for on a new connection: leases taken back in
 *     time, and copy-states taken over before the primary saw the old connection drop (no lease
 *     started for those)
 * @param expired leases that ran out before their replica came back
 * @param evicted leases released early to stay within the bounds
 */
@Experimental
public record CopyStateLeaseCounts(int held, long started, long resumed, long expired, long evicted) {}
