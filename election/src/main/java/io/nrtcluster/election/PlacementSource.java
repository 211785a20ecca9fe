package io.nrtcluster.election;

import io.nrtcluster.common.Internal;

/**
 * Where an election reads who leads how many indexes ({@link Placement}) and hears that it changed:
 * one per host ({@link HostDirectory}), shared by all the host's elections, so an election step reads
 * memory, never ZooKeeper, for it.
 *
 * <p>Implementations answer {@link #current()} at once and call listeners on one thread, quickly;
 * a listener must not block.
 */
@Internal
public interface PlacementSource {
  /** None: elections rank as without placement (the best-ranked member wins, as before placement existed). */
  PlacementSource NONE = new PlacementSource() {
    @Override
    public Placement current() {
      return Placement.EMPTY;
    }

    @Override
    public void addListener(Runnable listener) {}

    @Override
    public void removeListener(Runnable listener) {}
  };

  /** The placement as last seen. */
  Placement current();

  /** Runs {@code listener} after every change of {@link #current()} (until removed). */
  void addListener(Runnable listener);

  void removeListener(Runnable listener);
}
