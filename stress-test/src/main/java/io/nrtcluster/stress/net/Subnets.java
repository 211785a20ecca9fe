package io.nrtcluster.stress.net;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** Picks a /24 in 10.213.0.0/16 that no address or route of the root namespace overlaps. */
final class Subnets {
  static final int FIRST_OCTET = 10;
  static final int SECOND_OCTET = 213;
  private static final Set<String> ROUTE_TYPES = Set.of("unicast", "local", "broadcast", "multicast", "anycast",
      "blackhole", "unreachable", "prohibit", "throw", "nat");

  private Subnets() {}

  /** An IPv4 prefix as an int address and a length. */
  record Prefix(int address, int length) {
    static Prefix parse(String text) {
      int slash = text.indexOf('/');
      String a = slash < 0 ? text : text.substring(0, slash);
      int len = slash < 0 ? 32 : Integer.parseInt(text.substring(slash + 1));
      String[] o = a.split("\\.");
      if (o.length != 4) {
        throw new IllegalArgumentException("not an IPv4 prefix: " + text);
      }
      int v = 0;
      for (String s : o) {
        v = (v << 8) | Integer.parseInt(s);
      }
      return new Prefix(v, len);
    }

    boolean overlaps(Prefix other) {
      int len = Math.min(length, other.length);
      int mask = len == 0 ? 0 : -1 << (32 - len);
      return (address & mask) == (other.address & mask);
    }
  }

  /**
   * The third octet N of the first 10.213.N.0/24 overlapping none of the prefixes in
   * {@code ip -4 -o addr} and {@code ip -4 route show table all} output (default routes aside).
   */
  static int pickFree(String addrOutput, String routeOutput) throws NetLabException {
    List<Prefix> taken = new ArrayList<>();
    for (String line : addrOutput.split("\n")) {
      String[] t = line.trim().split("\\s+");
      for (int i = 0; i + 1 < t.length; i++) {
        if (t[i].equals("inet")) {
          taken.add(Prefix.parse(t[i + 1]));
        }
      }
    }
    for (String line : routeOutput.split("\n")) {
      String[] t = line.trim().split("\\s+");
      if (t.length == 0 || t[0].isEmpty()) {
        continue;
      }
      String dst = ROUTE_TYPES.contains(t[0]) && t.length > 1 ? t[1] : t[0];
      if (dst.equals("default") || !Character.isDigit(dst.charAt(0))) {
        continue;
      }
      taken.add(Prefix.parse(dst));
    }
    for (int n = 0; n < 256; n++) {
      Prefix candidate = new Prefix((FIRST_OCTET << 24) | (SECOND_OCTET << 16) | (n << 8), 24);
      if (taken.stream().noneMatch(candidate::overlaps)) {
        return n;
      }
    }
    throw new NetLabException("netlab: no free /24 left in " + FIRST_OCTET + "." + SECOND_OCTET + ".0.0/16");
  }
}
