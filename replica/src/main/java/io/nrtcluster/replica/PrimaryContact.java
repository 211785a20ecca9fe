package io.nrtcluster.replica;

import io.nrtcluster.common.Experimental;

/**
 * The last time a replica heard from its primary: the primary's connection handshake or its answer
 * to a heartbeat ({@link Replica#startHeartbeat}). What a failure detector compares with the primary
 * it follows, by node id and generation, so that contact with an earlier primary never counts.
 *
 * @param nodeId the primary's node id, as its handshake announced it
 * @param primaryGen the primary generation its handshake announced
 * @param atNanos {@link System#nanoTime()} of the contact
 */
@Experimental
public record PrimaryContact(int nodeId, long primaryGen, long atNanos) {}
