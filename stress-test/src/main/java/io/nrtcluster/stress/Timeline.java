package io.nrtcluster.stress;

import io.nrtcluster.election.Role;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What happened during a run, in run-relative milliseconds: each node's observed role and searching
 * version over time, and every fault injected. The report's chart and counters are made from it.
 */
final class Timeline {
  /**
   * One observation of one node: its process state, and its role when it answered ({@code role} is
   * null when the process was not up, or was up and did not answer; {@code version} and {@code gen}
   * are then -1).
   */
  record Sample(long atMillis, int nodeId, NodeProcess.State process, Role role, long version, long gen) {}

  /** One injected fault; a network fault also has the time it was healed ({@code untilMillis}, else -1). */
  record Event(long atMillis, FaultKind kind, String target, String detail, long untilMillis) {}

  private final long startMillis = System.currentTimeMillis();
  private final List<Sample> samples = new ArrayList<>();
  private final List<Event> events = new ArrayList<>();
  private final Map<FaultKind, Integer> counts = new EnumMap<>(FaultKind.class);

  long startMillis() {
    return startMillis;
  }

  long now() {
    return System.currentTimeMillis() - startMillis;
  }

  /** A node that answered its status request. */
  synchronized void sample(int nodeId, Role role, long version, long gen) {
    samples.add(new Sample(now(), nodeId, NodeProcess.State.UP, role, version, gen));
  }

  /** A node that did not answer: its process was {@code process} (UP when it was up but unreachable). */
  synchronized void silent(int nodeId, NodeProcess.State process) {
    samples.add(new Sample(now(), nodeId, process, null, -1, -1));
  }

  synchronized void fault(FaultKind kind, String target, String detail) {
    events.add(new Event(now(), kind, target, detail, -1));
    counts.merge(kind, 1, Integer::sum);
  }

  /** A fault that lasts until {@link #healed}: returns its number. */
  synchronized int lasting(FaultKind kind, String target, String detail) {
    fault(kind, target, detail);
    return events.size() - 1;
  }

  /** The lasting fault {@code number} ended now. */
  synchronized void healed(int number) {
    Event e = events.get(number);
    events.set(number, new Event(e.atMillis(), e.kind(), e.target(), e.detail(), now()));
  }

  synchronized int count(FaultKind kind) {
    return counts.getOrDefault(kind, 0);
  }

  synchronized int faultsSoFar() {
    return events.size();
  }

  synchronized List<Sample> samples() {
    return List.copyOf(samples);
  }

  synchronized List<Event> events() {
    return List.copyOf(events);
  }
}
