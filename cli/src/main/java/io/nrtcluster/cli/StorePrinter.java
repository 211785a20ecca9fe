package io.nrtcluster.cli;

import io.nrtcluster.objectstore.HostObjectStore;
import io.nrtcluster.objectstore.HostStoreConfig;
import io.nrtcluster.objectstore.VerifyReport;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * {@code nrt node}'s object-store lines, printed when something changed since the last look: the
 * store detached or attached again, and each index's newest verification of its backup (intact or
 * naming each damaged object). Called from the node's single status thread only.
 */
final class StorePrinter {
  private final HostObjectStore store;
  private final HostStoreConfig config;
  private final int nodeId;
  private final Consumer<String> out;
  private boolean attached = true;
  private final Map<String, VerifyReport> shown = new HashMap<>();

  StorePrinter(HostObjectStore store, HostStoreConfig config, int nodeId, Console out) {
    this(store, config, nodeId, (Consumer<String>) out::println);
  }

  StorePrinter(HostObjectStore store, HostStoreConfig config, int nodeId, Consumer<String> out) {
    this.store = store;
    this.config = config;
    this.nodeId = nodeId;
    this.out = out;
    this.attached = store.storeAttached();
  }

  void print(List<String> indexes) {
    boolean now = store.storeAttached();
    if (now != attached) {
      attached = now;
      out.accept(NodeLines.storeState(nodeId, now, config));
    }
    for (String index : indexes) {
      store.verification(index).ifPresent(r -> {
        if (shown.put(index, r) != r) {
          out.accept(NodeLines.verification(nodeId, index, r));
        }
      });
    }
  }
}
