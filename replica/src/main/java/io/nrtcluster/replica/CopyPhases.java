package io.nrtcluster.replica;

import io.nrtcluster.common.Experimental;

/**
 * When each step of copying one NRT point happened on a replica, as {@code System.nanoTime()} of
 * this process (on Linux one clock for every process of a machine, so a benchmark can set them
 * against the primary's refresh times): the point heard of, its copy-state in hand (the same instant
 * when the point brought it), every new file received and verified, the new searcher open.
 *
 * @param version the version now searched
 * @param pointNanos when the replica first heard of this version (-1 if it never heard of it alone:
 *     a start-up or resync copy)
 * @param copyStateNanos when the copy-state was in hand
 * @param filesNanos when every file had arrived and been verified
 * @param searcherNanos when the replica's searcher switched to the version (searches see it from then on)
 * @param reportedNanos when the replica told its listeners (after recording the new files as verified)
 */
@Experimental
public record CopyPhases(long version, long pointNanos, long copyStateNanos, long filesNanos, long searcherNanos,
    long reportedNanos) {}
