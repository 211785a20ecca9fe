package io.nrtcluster.transport;

import io.nrtcluster.common.Checks;
import io.nrtcluster.common.Stable;

/** A node's replication endpoint: host name or IP literal and TCP port. */
@Stable
public record NodeAddress(String host, int port) {
  /** Validates both fields; throws {@link IllegalArgumentException} naming the bad one. */
  public NodeAddress {
    Checks.notBlank("address.host", host);
    Checks.inRange("address.port", port, 0, 65535);
  }

  /** Parses {@code host:port} (an IPv6 literal in brackets: {@code [::1]:9000}). */
  public static NodeAddress parse(String text) {
    Checks.notBlank("address", text);
    int colon = text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("address must be host:port, got '" + text + "'");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address port must be a number, got '" + text + "'", e);
    }
    return new NodeAddress(host, port);
  }

  @Override
  public String toString() {
    return host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
  }
}
