package io.nrtcluster.stress;

import java.io.IOException;

/**
 * The links between the run's hosts (nodes {@code N<i>}, ZooKeeper servers {@code zk<j>}), as the
 * fault runner cuts and slows them. Only hosts in network namespaces have links of their own; the
 * harness always reaches every host, whatever is cut.
 */
interface Links {
  /** Cuts and slows what {@code fault} says, on top of what is cut already. */
  void apply(LinkFault fault) throws IOException;

  /** Undoes every cut and slow link. */
  void healAll() throws IOException;
}
