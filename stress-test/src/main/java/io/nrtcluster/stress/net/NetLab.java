package io.nrtcluster.stress.net;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hosts in network namespaces on one bridge, with links that can be cut and slowed. Needs root and
 * iproute2; {@link #create} refuses with a {@link NetLabException} otherwise and never falls back.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>Every name it makes carries the {@code nrtc} prefix, this JVM's PID and a lab letter (bridge
 *       {@code nrtcb<pid><l>}, namespaces {@code nrtc-<pid><l>-<host>}, host-side veths
 *       {@code nrtc<pid><l><k>}), so {@link #sweepStale} can tell leftovers of a dead harness from a live lab.
 *   <li>The hosts get addresses in a 10.213.N.0/24 that overlapped no address or route of the machine
 *       when the lab was made; the bridge holds .1 in the root namespace, so the harness reaches every
 *       host, and no cut ever involves .1.
 *   <li>Faults are routes, policy rules and {@code tbf} qdiscs inside the lab's own namespaces and veths
 *       only; the lab tracks each, applies each once, and undoes them on {@link #heal}/{@link #unslow}.
 *   <li>{@link #close} (also run by a JVM shutdown hook, so on normal exit and SIGTERM) SIGKILLs every
 *       process left in the lab's namespaces, waits (bounded) until they are gone, and deletes the
 *       namespaces, veths and bridge. A harness killed by SIGKILL leaves them behind; the next
 *       {@link #create} on the machine sweeps them.
 * </ul>
 * Fault changes are serialized; readers ({@link #cuts}, {@link #slowed}, {@link #hosts}) get snapshots.
 */
public final class NetLab implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(NetLab.class);
  /** The namespace side of each host's veth. */
  static final String IFACE = "eth0";
  private static final int FIRST_HOST_OCTET = 10;
  private static final int MAX_HOSTS = 240;
  /** Where the lab moves the local-address lookup from preference 0, behind the cut rules. */
  static final String LOCAL_RULE_PREF = "1000";
  private static final long MIN_RATE = 8_000;
  private static final long MAX_RATE = 100_000_000_000L;
  private static final Path LOCK_FILE = Path.of(Files.isDirectory(Path.of("/run/lock")) ? "/run/lock" : "/tmp",
      "nrtc-netlab.lock");
  private static final Set<Character> LETTERS_IN_USE = new HashSet<>();

  /** One cut link: packets from {@code from} to {@code to} are dropped as {@code mode} says. */
  public record Cut(Host from, Host to, CutMode mode) {}

  private final String purpose;
  private final String ip;
  private final LabNames names;
  private final int subnet;
  private final List<Host> hosts;
  private final Map<String, Host> byName;
  private final Map<Host, String> veths;
  private final Teardown teardown;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch closeDone = new CountDownLatch(1);
  /** The cuts and slowed links in place; it serializes their changes. */
  private final LinkFaults faults;
  private final Thread shutdownHook;

  private NetLab(String purpose, String ip, LabNames names, int subnet, List<String> hostNames) {
    this.purpose = purpose;
    this.ip = ip;
    this.names = names;
    this.subnet = subnet;
    List<Host> hs = new ArrayList<>();
    Map<String, Host> byName = new LinkedHashMap<>();
    Map<Host, String> veths = new LinkedHashMap<>();
    for (int k = 0; k < hostNames.size(); k++) {
      String name = hostNames.get(k);
      Host h = new Host(name, names.namespace(name), prefix() + (FIRST_HOST_OCTET + k));
      hs.add(h);
      byName.put(name, h);
      veths.put(h, names.veth(k));
    }
    this.hosts = List.copyOf(hs);
    this.byName = Map.copyOf(byName);
    this.veths = Map.copyOf(veths);
    this.teardown = new Teardown(ip);
    this.faults = new LinkFaults(ip, this.veths, this::requireOpen);
    this.shutdownHook = new Thread(this::closeQuietly, "netlab-cleanup-" + names.bridge());
  }

  /** True if this process runs as root and {@code ip} is installed: what {@link #create} needs. */
  public static boolean rootAvailable() {
    try {
      Sys.requireUsable(Sys.effectiveUid(), Sys.find("ip"));
      return true;
    } catch (NetLabException e) {
      return false;
    }
  }

  /** See {@link #create(String, List)}. */
  public static NetLab create(String purpose, String... hostNames) throws NetLabException {
    return create(purpose, List.of(hostNames));
  }

  /**
   * Sweeps leftovers of dead harnesses, then makes the bridge and one namespace per host name (names:
   * letters, digits, '-' and '_', unique). {@code purpose} only goes into the log.
   *
   * @throws NetLabException not root, no {@code ip}, or a command failed (what was made is removed)
   */
  public static NetLab create(String purpose, List<String> hostNames) throws NetLabException {
    Sys.requireUsable(Sys.effectiveUid(), Sys.find("ip"));
    if (hostNames.isEmpty() || hostNames.size() > MAX_HOSTS) {
      throw new IllegalArgumentException("hostNames: 1 to " + MAX_HOSTS + " names, got " + hostNames.size());
    }
    if (new HashSet<>(hostNames).size() != hostNames.size()) {
      throw new IllegalArgumentException("hostNames: duplicate names in " + hostNames);
    }
    String ip = ipTool();
    // One lab at a time picks its subnet and claims it with its bridge's address: across processes
    // through the lock file, within this JVM through the class monitor (a FileLock is per JVM).
    synchronized (NetLab.class) {
      try (FileChannel ch = FileChannel.open(LOCK_FILE, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = ch.lock()) {
        sweepStale(ip);
        Teardown t = new Teardown(ip);
        LabNames names = new LabNames(ProcessHandle.current().pid(), pickLetter(t));
        int subnet = Subnets.pickFree(Cmd.check(ip, "-4", "-o", "addr", "show"),
            Cmd.check(ip, "-4", "route", "show", "table", "all"));
        NetLab lab = new NetLab(purpose, ip, names, subnet, hostNames);
        Runtime.getRuntime().addShutdownHook(lab.shutdownHook);
        try {
          lab.build();
        } catch (NetLabException | RuntimeException e) {
          try {
            lab.close();
          } catch (NetLabException closing) {
            e.addSuppressed(closing);
          }
          throw e;
        }
        LOG.info("netlab: {}: bridge {} {}/24, hosts {}", purpose, names.bridge(), lab.bridgeAddress(), lab.hosts);
        return lab;
      } catch (NetLabException e) {
        throw e;
      } catch (IOException e) {
        throw new NetLabException("netlab: cannot lock " + LOCK_FILE + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Removes the namespaces, veths and bridges of labs whose owning PID is no longer alive (a harness
   * killed by SIGKILL), killing the processes in those namespaces first. A PID reused by another process
   * keeps its leftovers until that process ends too.
   *
   * @return how many namespaces and links it removed
   */
  public static int sweepStale() throws NetLabException {
    Sys.requireUsable(Sys.effectiveUid(), Sys.find("ip"));
    synchronized (NetLab.class) {
      return sweepStale(ipTool());
    }
  }

  private static int sweepStale(String ip) throws NetLabException {
    Teardown t = new Teardown(ip);
    List<String> removed = new ArrayList<>();
    List<String> namespaces = t.namespaces().stream().filter(NetLab::stale).toList();
    for (String ns : namespaces) {
      t.killAll(ns);
    }
    // Links first, so each is deleted (not left to the kernel's asynchronous cleanup of a namespace);
    // veths sort before bridges ("nrtc<digit>" < "nrtcb"), so a bridge goes once its ports are gone.
    for (String link : t.links()) {
      if (stale(link)) {
        t.deleteLink(link);
        removed.add(link);
      }
    }
    for (String ns : namespaces) {
      t.deleteNamespace(ns);
      removed.add(ns);
    }
    if (!removed.isEmpty()) {
      LOG.warn("netlab: swept leftovers of dead harnesses: {}", removed);
    }
    return removed.size();
  }

  private static boolean stale(String name) {
    return LabNames.owner(name).map(o -> !Sys.alive(o.pid())).orElse(false);
  }

  private static char pickLetter(Teardown t) throws NetLabException {
    long pid = ProcessHandle.current().pid();
    Set<String> links = t.links();
    Set<String> namespaces = t.namespaces();
    synchronized (LETTERS_IN_USE) {
      for (char c = 'a'; c <= 'z'; c++) {
        LabNames n = new LabNames(pid, c);
        String nsPrefix = LabNames.PREFIX + "-" + pid + c + "-";
        if (!LETTERS_IN_USE.contains(c) && !links.contains(n.bridge())
            && namespaces.stream().noneMatch(ns -> ns.startsWith(nsPrefix))) {
          LETTERS_IN_USE.add(c);
          return c;
        }
      }
    }
    throw new NetLabException("netlab: this process already has 26 labs");
  }

  /** The {@code ip} executable (absolute when found). */
  static String ipTool() {
    return Sys.find("ip").map(Path::toString).orElse("ip");
  }

  private void build() throws NetLabException {
    String bridge = names.bridge();
    Cmd.check(ip, "link", "add", bridge, "type", "bridge");
    Cmd.check(ip, "addr", "add", bridgeAddress() + "/24", "dev", bridge);
    Cmd.check(ip, "link", "set", bridge, "up");
    for (Host h : hosts) {
      String ns = h.namespace();
      String veth = veths.get(h);
      Cmd.check(ip, "netns", "add", ns);
      Cmd.check(ip, "link", "add", veth, "type", "veth", "peer", "name", IFACE, "netns", ns);
      Cmd.check(ip, "link", "set", veth, "master", bridge, "up");
      Cmd.check(ip, "-n", ns, "addr", "add", h.address() + "/24", "dev", IFACE);
      Cmd.check(ip, "-n", ns, "link", "set", IFACE, "up");
      Cmd.check(ip, "-n", ns, "link", "set", "lo", "up");
      // The local-address lookup (preference 0) would accept packets for this host before any rule
      // could drop them; behind the cut rules, a DROP rule sees them first.
      Cmd.check(ip, "-n", ns, "rule", "add", "pref", LOCAL_RULE_PREF, "lookup", "local");
      Cmd.check(ip, "-n", ns, "rule", "del", "pref", "0", "lookup", "local");
    }
  }

  private String prefix() {
    return Subnets.FIRST_OCTET + "." + Subnets.SECOND_OCTET + "." + subnet + ".";
  }

  public String purpose() {
    return purpose;
  }

  /** The bridge's name in the root namespace. */
  public String bridge() {
    return names.bridge();
  }

  /** The bridge's address (.1): the root namespace's, i.e. the harness's, address on the lab's network. */
  public String bridgeAddress() {
    return prefix() + "1";
  }

  /** The lab's network, e.g. {@code 10.213.4.0/24}. */
  public String subnet() {
    return prefix() + "0/24";
  }

  /** The hosts in the order they were named. */
  public List<Host> hosts() {
    return hosts;
  }

  /** @throws IllegalArgumentException if the lab has no host of that name */
  public Host host(String name) {
    Host h = byName.get(name);
    if (h == null) {
      throw new IllegalArgumentException("no host " + name + " in lab " + names.bridge() + ": " + byName.keySet());
    }
    return h;
  }

  /** PIDs of the processes now running in {@code h}'s namespace. */
  public List<Long> pids(Host h) throws NetLabException {
    return teardown.pids(own(h).namespace());
  }

  /** Drops packets from {@code from} to {@code to} silently ({@link CutMode#DROP}); the other way stays open. */
  public void cut(Host from, Host to) throws NetLabException {
    cut(from, to, CutMode.DROP);
  }

  /** Drops packets from {@code from} to {@code to} as {@code mode} says; a cut already in place is left as is. */
  public void cut(Host from, Host to, CutMode mode) throws NetLabException {
    Cut c = new Cut(own(from), own(to), mode);
    if (from.equals(to)) {
      throw new IllegalArgumentException("a host cannot be cut from itself: " + from);
    }
    faults.cut(c);
  }

  /** Cuts both ways between {@code a} and {@code b}, silently. */
  public void cutBoth(Host a, Host b) throws NetLabException {
    cutBoth(a, b, CutMode.DROP);
  }

  public void cutBoth(Host a, Host b, CutMode mode) throws NetLabException {
    cut(a, b, mode);
    cut(b, a, mode);
  }

  /** Cuts every pair across the two (disjoint) sides both ways, silently; links within a side stay. */
  public void partition(Set<Host> sideA, Set<Host> sideB) throws NetLabException {
    partition(sideA, sideB, CutMode.DROP);
  }

  public void partition(Set<Host> sideA, Set<Host> sideB, CutMode mode) throws NetLabException {
    for (Host a : sideA) {
      if (sideB.contains(a)) {
        throw new IllegalArgumentException("host " + a + " is on both sides of the partition");
      }
    }
    for (Host a : sideA) {
      for (Host b : sideB) {
        cutBoth(a, b, mode);
      }
    }
  }

  /** Removes the cuts from {@code from} to {@code to}, of any mode. */
  public void uncut(Host from, Host to) throws NetLabException {
    faults.removeCuts(c -> c.from().equals(own(from)) && c.to().equals(own(to)));
  }

  /** Removes every cut this lab made (slowed links stay slow: see {@link #unslow}). */
  public void heal() throws NetLabException {
    faults.removeCuts(c -> true);
  }

  /** The cuts in place now (a snapshot). */
  public Set<Cut> cuts() {
    return faults.cuts();
  }

  /**
   * Limits {@code h}'s link to {@code rateBitsPerSecond} in both directions: a {@code tbf} qdisc on its
   * interface (what it sends) and on its host-side veth (what it receives). Replaces an earlier rate.
   */
  public void slow(Host h, long rateBitsPerSecond) throws NetLabException {
    if (rateBitsPerSecond < MIN_RATE || rateBitsPerSecond > MAX_RATE) {
      throw new IllegalArgumentException("rateBitsPerSecond must be in [" + MIN_RATE + ", " + MAX_RATE + "]: "
          + rateBitsPerSecond);
    }
    faults.slow(own(h), rateBitsPerSecond);
  }

  /** Gives {@code h}'s link its full speed back; does nothing if it was not slowed. */
  public void unslow(Host h) throws NetLabException {
    faults.unslow(own(h));
  }

  /** The slowed hosts and their rates in bit/s (a snapshot). */
  public Map<Host, Long> slowed() {
    return faults.slowed();
  }

  private Host own(Host h) {
    if (!h.equals(byName.get(h.name()))) {
      throw new IllegalArgumentException("host " + h + " is not one of lab " + names.bridge());
    }
    return h;
  }

  private void requireOpen() throws NetLabException {
    if (closed.get()) {
      throw new NetLabException("netlab: lab " + names.bridge() + " is closed");
    }
  }

  /**
   * Kills every process in the lab's namespaces (SIGKILL, waiting until they are gone) and deletes the
   * namespaces, veths and bridge. Idempotent; goes on past a failing step and throws the first failure.
   */
  @Override
  public void close() throws NetLabException {
    if (!closed.compareAndSet(false, true)) {
      awaitOtherClose();
      return;
    }
    try {
      doClose();
    } finally {
      closeDone.countDown();
    }
  }

  /** A second close (the shutdown hook while the harness closes) returns once the first is done, so the JVM cannot exit half-way. */
  private void awaitOtherClose() throws NetLabException {
    try {
      if (!closeDone.await(2, TimeUnit.MINUTES)) {
        throw new NetLabException("netlab: closing " + names.bridge() + " did not finish within 2 minutes");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new NetLabException("netlab: interrupted while waiting for " + names.bridge() + " to close", e);
    }
  }

  private void doClose() throws NetLabException {
    if (Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is exiting: the hook may be running this very close concurrently; both are idempotent.
      }
    }
    List<NetLabException> failures = new ArrayList<>();
    for (Host h : hosts) {
      step(failures, () -> teardown.killAll(h.namespace()));
    }
    for (Host h : hosts) {
      step(failures, () -> teardown.deleteLink(veths.get(h)));
      step(failures, () -> teardown.deleteNamespace(h.namespace()));
    }
    step(failures, () -> teardown.deleteLink(names.bridge()));
    synchronized (LETTERS_IN_USE) {
      LETTERS_IN_USE.remove(names.lab());
    }
    if (!failures.isEmpty()) {
      NetLabException first = failures.get(0);
      failures.subList(1, failures.size()).forEach(first::addSuppressed);
      LOG.warn("netlab: {}: closing {} left something behind: {}", purpose, names.bridge(), first.getMessage());
      throw first;
    }
    LOG.info("netlab: {}: removed bridge {} and {} host(s)", purpose, names.bridge(), hosts.size());
  }

  private void closeQuietly() {
    try {
      close();
    } catch (NetLabException e) {
      LOG.warn("netlab: cleanup at exit failed: {}", e.getMessage());
    }
  }

  private interface Step {
    void run() throws NetLabException;
  }

  private static void step(List<NetLabException> failures, Step step) {
    try {
      step.run();
    } catch (NetLabException e) {
      failures.add(e);
    }
  }
}
