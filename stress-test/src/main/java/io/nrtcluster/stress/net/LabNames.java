package io.nrtcluster.stress.net;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The names one lab gives its bridge, namespaces and host-side veths. Each carries the owning
 * process's PID and a letter telling labs of one process apart, so a leftover of a harness that died
 * is recognisable by name and its owner checkable. Interface names stay within the kernel's 15 chars.
 */
record LabNames(long pid, char lab) {
  static final String PREFIX = "nrtc";
  private static final Pattern BRIDGE = Pattern.compile("nrtcb(\\d+)([a-z])");
  private static final Pattern VETH = Pattern.compile("nrtc(\\d+)([a-z])(\\d+)");
  private static final Pattern NAMESPACE = Pattern.compile("nrtc-(\\d+)([a-z])-.+");
  private static final Pattern HOST_NAME = Pattern.compile("[A-Za-z0-9_-]{1,40}");
  private static final int IFNAMSIZ = 15;

  LabNames {
    if (lab < 'a' || lab > 'z') {
      throw new IllegalArgumentException("lab letter " + lab);
    }
  }

  String bridge() {
    return checkLength(PREFIX + "b" + pid + lab);
  }

  String veth(int index) {
    return checkLength(PREFIX + pid + lab + index);
  }

  String namespace(String host) {
    if (!HOST_NAME.matcher(host).matches()) {
      throw new IllegalArgumentException("host name must match " + HOST_NAME + ": " + host);
    }
    return PREFIX + "-" + pid + lab + "-" + host;
  }

  /** The lab a bridge, veth or namespace name belongs to, if it is one of ours. */
  static Optional<LabNames> owner(String name) {
    for (Pattern p : new Pattern[] {BRIDGE, VETH, NAMESPACE}) {
      Matcher m = p.matcher(name);
      if (m.matches()) {
        try {
          return Optional.of(new LabNames(Long.parseLong(m.group(1)), m.group(2).charAt(0)));
        } catch (NumberFormatException e) {
          return Optional.empty();
        }
      }
    }
    return Optional.empty();
  }

  private static String checkLength(String ifname) {
    if (ifname.length() > IFNAMSIZ) {
      throw new IllegalArgumentException("interface name longer than " + IFNAMSIZ + " chars: " + ifname);
    }
    return ifname;
  }
}
