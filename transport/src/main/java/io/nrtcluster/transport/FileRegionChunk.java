package io.nrtcluster.transport;

import io.netty.channel.FileRegion;

/**
 * Outbound-only twin of {@link FileChunk} whose bytes go from the file to the socket without
 * entering user space (sendfile). Decoded on the other side as a plain {@link FileChunk}.
 */
record FileRegionChunk(long requestId, long offset, FileRegion region) implements Message {}
