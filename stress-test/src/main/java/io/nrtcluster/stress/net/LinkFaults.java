package io.nrtcluster.stress.net;

import io.nrtcluster.stress.net.NetLab.Cut;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The link faults of one {@link NetLab}: cuts (a blackhole policy rule in the receiving host's
 * namespace, or a prohibit route in the sending one's) and slowed links ({@code tbf} qdiscs on both
 * ends of a host's veth). It owns the record of what is in place: each fault is applied once, tracked,
 * and undone on request. Changes are serialized and made only while the lab is open; readers get
 * snapshots. The lab owns its hosts, their veths and whether it is open.
 */
final class LinkFaults {
  private static final Logger LOG = LoggerFactory.getLogger(LinkFaults.class);
  /** Cut rules come before the local-address lookup, which the lab moves to {@link NetLab#LOCAL_RULE_PREF}. */
  private static final String CUT_RULE_PREF = "100";
  /** How long a packet may wait in a slowed link's queue before tbf drops it. */
  private static final String SLOW_LATENCY = "100ms";

  /** Fails once the lab is closed: no fault is made or undone on a lab being torn down. */
  @FunctionalInterface
  interface Open {
    void require() throws NetLabException;
  }

  private final String ip;
  private final Map<Host, String> veths;
  private final Open open;
  private final ReentrantLock changes = new ReentrantLock();
  private volatile Set<Cut> cuts = Set.of();
  private volatile Map<Host, Long> slowed = Map.of();

  /**
   * @param ip the {@code ip} executable
   * @param veths each host's host-side veth
   */
  LinkFaults(String ip, Map<Host, String> veths, Open open) {
    this.ip = ip;
    this.veths = veths;
    this.open = open;
  }

  /** Makes cut {@code c} (of two hosts of the lab); a cut already in place is left as is. */
  void cut(Cut c) throws NetLabException {
    changes.lock();
    try {
      open.require();
      if (cuts.contains(c)) {
        return;
      }
      apply(c, true);
      Set<Cut> next = new LinkedHashSet<>(cuts);
      next.add(c);
      cuts = Set.copyOf(next);
      LOG.info("netlab: cut {} -> {} ({})", c.from(), c.to(), c.mode());
    } finally {
      changes.unlock();
    }
  }

  /** Removes the cuts {@code which} accepts; goes on past a failing one and throws the first failure. */
  void removeCuts(Predicate<Cut> which) throws NetLabException {
    changes.lock();
    try {
      open.require();
      NetLabException first = null;
      Set<Cut> left = new LinkedHashSet<>(cuts);
      for (Cut c : cuts) {
        if (which.test(c)) {
          try {
            apply(c, false);
            left.remove(c);
            LOG.info("netlab: healed {} -> {} ({})", c.from(), c.to(), c.mode());
          } catch (NetLabException e) {
            first = first == null ? e : first;
          }
        }
      }
      cuts = Set.copyOf(left);
      if (first != null) {
        throw first;
      }
    } finally {
      changes.unlock();
    }
  }

  private void apply(Cut c, boolean add) throws NetLabException {
    String verb = add ? "add" : "del";
    switch (c.mode()) {
      case DROP -> Cmd.check(ip, "-n", c.to().namespace(), "rule", verb, "pref", CUT_RULE_PREF,
          "from", c.from().address() + "/32", "iif", NetLab.IFACE, "blackhole");
      case REJECT -> Cmd.check(ip, "-n", c.from().namespace(), "route", verb, "prohibit", c.to().address() + "/32");
    }
  }

  /** The cuts in place now (a snapshot). */
  Set<Cut> cuts() {
    return cuts;
  }

  /** Limits {@code host}'s link (a host of the lab) to {@code rateBitsPerSecond} both ways; replaces an earlier rate. */
  void slow(Host host, long rateBitsPerSecond) throws NetLabException {
    String tc = Sys.find("tc").map(Path::toString)
        .orElseThrow(() -> new NetLabException("netlab: the `tc` tool (iproute2) is not installed"));
    // A bucket of 10 ms of traffic, at least a few full-size frames so tbf never stalls on one.
    String burst = Long.toString(Math.max(rateBitsPerSecond / 8 / 100, 8192));
    String rate = rateBitsPerSecond + "bit";
    changes.lock();
    try {
      open.require();
      Cmd.check(tc, "-n", host.namespace(), "qdisc", "replace", "dev", NetLab.IFACE, "root", "tbf", "rate", rate,
          "burst", burst, "latency", SLOW_LATENCY);
      Cmd.check(tc, "qdisc", "replace", "dev", veths.get(host), "root", "tbf", "rate", rate, "burst", burst,
          "latency", SLOW_LATENCY);
      Map<Host, Long> next = new LinkedHashMap<>(slowed);
      next.put(host, rateBitsPerSecond);
      slowed = Map.copyOf(next);
      LOG.info("netlab: slowed {} to {} bit/s", host, rateBitsPerSecond);
    } finally {
      changes.unlock();
    }
  }

  /** Gives {@code host}'s link (a host of the lab) its full speed back; does nothing if it was not slowed. */
  void unslow(Host host) throws NetLabException {
    changes.lock();
    try {
      open.require();
      if (!slowed.containsKey(host)) {
        return;
      }
      String tc = Sys.find("tc").map(Path::toString).orElse("tc");
      Cmd.check(tc, "-n", host.namespace(), "qdisc", "del", "dev", NetLab.IFACE, "root");
      Cmd.check(tc, "qdisc", "del", "dev", veths.get(host), "root");
      Map<Host, Long> next = new LinkedHashMap<>(slowed);
      next.remove(host);
      slowed = Map.copyOf(next);
      LOG.info("netlab: unslowed {}", host);
    } finally {
      changes.unlock();
    }
  }

  /** The slowed hosts and their rates in bit/s (a snapshot). */
  Map<Host, Long> slowed() {
    return slowed;
  }
}
