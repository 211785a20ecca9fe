package io.nrtcluster.transport;

import io.nrtcluster.common.Experimental;

/**
 * Bytes a transport handed to its sockets and read from them, counted by the transport itself at
 * the socket end of each connection's pipeline (after TLS, so TLS records count as sent), never read
 * from the kernel's counters.
 *
 * @param bytesSent bytes written to the sockets (frames, file data through {@code FileRegion} or
 *     chunks, handshakes and pings)
 * @param bytesReceived bytes read from the sockets
 */
@Experimental
public record Traffic(long bytesSent, long bytesReceived) {
  public static final Traffic NONE = new Traffic(0, 0);
}
