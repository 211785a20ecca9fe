package io.nrtcluster.stress;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * The faults the chaos harness injects, each switchable. The JSON key names the report's counter.
 */
public enum FaultKind {
  /** SIGKILL of the primary's process. */
  PRIMARY_KILL("primaryKill"),
  /** SIGKILL of a replica's process. */
  REPLICA_KILL("replicaKill"),
  /** A JVM crash (SIGSEGV to the process, or {@code Runtime.halt} through its endpoint) of any node. */
  JVM_CRASH("jvmCrash"),
  /** SIGSTOP, then SIGCONT after a while, sometimes longer than the ZooKeeper session timeout. */
  PAUSE("pause"),
  /** Bit flips and throttling on every node's wire for a while, through the transport's fault point. */
  WIRE("wire"),
  /** One ZooKeeper server of the ensemble crashes and restarts. */
  ZK_RESTART("zkServerRestart"),
  /** Every node is killed at once and started again. */
  FULL_RESTART("fullClusterRestart"),
  /** An operator promotes a random replica (graceful hand-off). */
  PROMOTION("promotion"),
  /** SIGSTOP of the primary for longer than the session timeout (1.5 to 3 times), then SIGCONT: a zombie primary. */
  PRIMARY_PAUSE("primaryPause"),
  /** The primary cut off from every ZooKeeper server, both ways; it still reaches its replicas. */
  PARTITION_PRIMARY_ZOOKEEPER("partitionPrimaryZooKeeper", true),
  /** The primary cut off from every other node, both ways; it still reaches ZooKeeper. */
  PARTITION_PRIMARY_REPLICAS("partitionPrimaryReplicas", true),
  /** Nodes and ZooKeeper servers split at random into two halves that cannot reach each other. */
  PARTITION_HALVES("partitionHalves", true),
  /** Two sides that cannot reach each other, and one node that reaches both (a bridge). */
  PARTITION_BRIDGE("partitionBridge", true),
  /** Packets from one host to others dropped, the other direction delivered. */
  PARTITION_ONE_WAY("partitionOneWay", true),
  /** One host's link rate-limited (tbf) both ways. */
  SLOW_LINK("slowLink", true),
  /** A node's disk (its tmpfs) filled from outside until nothing is left, then freed. */
  DISK_FULL("diskFull", false, true),
  /**
   * One bit flipped in a random file of a node's last commit on disk, its timestamps put back (the
   * primary's or a replica's). Half the time the node is killed first and restarted: it must
   * quarantine the file before it serves or offers anything. Otherwise it runs on: its scrub (or a
   * read) must find the file within one pass, unless the file is merged away or replaced first
   * ({@link DiskFlipFault}).
   */
  DISK_BIT_FLIP("diskBitFlip"),
  /**
   * Every node's replication connections dropped after each has received a few hundred KiB to a few
   * MiB of file data, for a few seconds: copies must resume (or start over) and converge.
   */
  COPY_DROP("copyDrop"),
  /**
   * SIGKILL of a replica, its index's directory wiped, and a restart: it bootstraps from the newest
   * backup in the object store and catches up from the primary (or, when the store cannot be used,
   * copies everything from the primary). Needs the object store.
   */
  REPLICA_REBUILD("replicaRebuild", false, false, true),
  /**
   * The object store stopped for a while (sometimes longer than several commits) and started again:
   * indexing and replication go on meanwhile, backups resume once it is back. Needs the object store.
   */
  STORE_RESTART("storeRestart", false, false, true),
  /**
   * SIGKILL of a replica that other replicas copy from (a parent of the copy tree, {@code
   * CopyTreeConfig}), while one of them is copying when that can be caught, and a restart after a
   * while: its children must fetch what it did not finish from the primary and catch up ({@link
   * CopyParentKill}). Needs {@value #COPY_TREE_NODES} nodes or more: the nodes' index settings have
   * two replicas copy from the primary, so only a third has a parent. Skipped (counted) when no live
   * replica is a parent when it fires (one is down, or the tree has not formed again).
   */
  COPY_PARENT_KILL("copyParentKill", false, false, false, FaultKind.COPY_TREE_NODES);

  /** The fewest nodes of a run (ChaosConfig's bound): the kinds whose {@link #minNodes} it is are always possible. */
  static final int MIN_NODES = 3;
  /** Nodes a copy tree needs: the primary, the two replicas that copy from it, and one that copies from one of them. */
  static final int COPY_TREE_NODES = 4;

  private final String key;
  private final boolean needsNamespaces;
  private final boolean needsTmpfs;
  private final boolean needsObjectStore;
  private final int minNodes;

  FaultKind(String key) {
    this(key, false);
  }

  FaultKind(String key, boolean needsNamespaces) {
    this(key, needsNamespaces, false);
  }

  FaultKind(String key, boolean needsNamespaces, boolean needsTmpfs) {
    this(key, needsNamespaces, needsTmpfs, false);
  }

  FaultKind(String key, boolean needsNamespaces, boolean needsTmpfs, boolean needsObjectStore) {
    this(key, needsNamespaces, needsTmpfs, needsObjectStore, FaultKind.MIN_NODES);
  }

  FaultKind(String key, boolean needsNamespaces, boolean needsTmpfs, boolean needsObjectStore, int minNodes) {
    this.key = key;
    this.needsNamespaces = needsNamespaces;
    this.needsTmpfs = needsTmpfs;
    this.needsObjectStore = needsObjectStore;
    this.minNodes = minNodes;
  }

  /** The fewest nodes a run needs for it ({@value #MIN_NODES} for most kinds). */
  public int minNodes() {
    return minNodes;
  }

  /** Whether it rebuilds from or stops the object store, which only a run with one has. */
  public boolean needsObjectStore() {
    return needsObjectStore;
  }

  /** Whether it fills disks, which only tmpfs storage has. */
  public boolean needsTmpfs() {
    return needsTmpfs;
  }

  /** Whether it cuts or slows links, which only hosts in network namespaces have. */
  public boolean needsNamespaces() {
    return needsNamespaces;
  }

  /** Whether it is a cut between hosts (its key starts with {@code partition}). */
  public boolean isPartition() {
    return name().startsWith("PARTITION_");
  }

  /** Whether it lasts a while and heals (drawn as a shaded band on the timeline). */
  public boolean isNetwork() {
    return needsNamespaces;
  }

  /** The kinds a run of three nodes on {@code network} with plain storage and no object store can inject. */
  public static Set<FaultKind> available(NetworkMode network) {
    return available(network, StorageMode.PLAIN);
  }

  /**
   * The kinds a run of three nodes on {@code network} and {@code storage} without an object store can
   * inject: link faults need namespaces, disk faults tmpfs storage.
   */
  public static Set<FaultKind> available(NetworkMode network, StorageMode storage) {
    return available(network, storage, false);
  }

  /**
   * The kinds a run of three nodes on {@code network} and {@code storage}, with or without an object
   * store, can inject: link faults need namespaces, disk faults tmpfs storage, store faults the store.
   */
  public static Set<FaultKind> available(NetworkMode network, StorageMode storage, boolean objectStore) {
    return available(network, storage, objectStore, MIN_NODES);
  }

  /**
   * The kinds a run of {@code nodes} nodes on {@code network} and {@code storage}, with or without an
   * object store, can inject: link faults need namespaces, disk faults tmpfs storage, store faults
   * the store, a copy parent's kill {@value #COPY_TREE_NODES} nodes.
   */
  public static Set<FaultKind> available(NetworkMode network, StorageMode storage, boolean objectStore, int nodes) {
    EnumSet<FaultKind> kinds = EnumSet.allOf(FaultKind.class);
    kinds.removeIf(k -> k.minNodes > nodes);
    if (!objectStore) {
      kinds.removeIf(FaultKind::needsObjectStore);
    }
    if (network != NetworkMode.NAMESPACES) {
      kinds.removeIf(FaultKind::needsNamespaces);
    }
    if (storage != StorageMode.TMPFS) {
      kinds.removeIf(FaultKind::needsTmpfs);
    }
    return kinds;
  }

  /** Name of this fault's counter in {@code chaos-report.json}. */
  public String key() {
    return key;
  }

  /** Parses a key or an enum name, case-insensitively ("pause", "PRIMARY_KILL", "primaryKill"). */
  public static FaultKind parse(String s) {
    for (FaultKind k : values()) {
      if (k.key.equalsIgnoreCase(s) || k.name().equalsIgnoreCase(s) || k.name().replace("_", "").equalsIgnoreCase(s)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown fault kind '" + s + "'; known: " + Arrays.stream(values())
        .map(FaultKind::key).toList());
  }
}
