package io.nrtcluster.stress.net;

import java.util.ArrayList;
import java.util.List;

/**
 * One host of a {@link NetLab}: its own network namespace with one interface on the lab's bridge.
 * A process started with {@link #wrap} runs in that namespace; {@code ip netns exec} execs the command,
 * so the started {@link Process}'s pid is the command's own.
 *
 * @param name      the name the lab was given for it
 * @param namespace the network namespace ({@code ip netns exec <namespace> ...})
 * @param address   its IPv4 address on the bridge, e.g. {@code 10.213.4.10}; a process in it must
 *                  listen on this address (or on all addresses) to be reachable from the others
 */
public record Host(String name, String namespace, String address) {
  /** {@code command} run inside this host's namespace: {@code ip netns exec <namespace> command...}. */
  public List<String> wrap(List<String> command) {
    List<String> wrapped = new ArrayList<>(List.of(NetLab.ipTool(), "netns", "exec", namespace));
    wrapped.addAll(command);
    return List.copyOf(wrapped);
  }

  @Override
  public String toString() {
    return name + "(" + address + ")";
  }
}
