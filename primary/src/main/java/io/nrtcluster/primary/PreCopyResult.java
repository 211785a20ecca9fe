package io.nrtcluster.primary;

/**
 * What one merge pre-copy did: the merged segment's files sent to the replicas connected when the
 * merge finished, before the primary installed the segment.
 *
 * @param segment the merged segment's name
 * @param bytes total length of its files
 * @param files number of files
 * @param replicas replicas it was sent to
 * @param succeeded replicas that confirmed every byte (the rest were skipped or timed out)
 * @param nanos time from the start of the pre-copy until the last replica finished or was given up
 */
public record PreCopyResult(String segment, long bytes, int files, int replicas, int succeeded, long nanos) {}
