package io.nrtcluster.replica;

import io.nrtcluster.common.GenerationStore;
import io.nrtcluster.common.NodeLog;

/** What the parts of one replica share: settings, log, counters and durable generation facts. */
record ReplicaContext(ReplicaConfig config, NodeLog log, ReplicaStats stats, GenerationStore store) {}
