package io.nrtcluster.common;

import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The allowed transitions of a state machine over the enum {@code S}, written down in one place (as
 * Apache Ratis' {@code LifeCycle} does): anything not listed is refused.
 *
 * <p>Guarantees: immutable once built; {@link #check} never changes anything, it only refuses with
 * {@link IllegalTransitionException} naming the machine, the state and the refused target.
 */
@Internal
public final class TransitionTable<S extends Enum<S>> {
  private final String machine;
  private final Map<S, Set<S>> next;

  private TransitionTable(String machine, Map<S, Set<S>> next) {
    this.machine = machine;
    this.next = next;
  }

  /** Starts a table for the states of {@code type}; {@code machine} names it in refusals. */
  public static <S extends Enum<S>> Builder<S> builder(String machine, Class<S> type) {
    return new Builder<>(machine, type);
  }

  /** True when {@code from -> to} is listed. */
  public boolean allows(S from, S to) {
    return next.get(from).contains(to);
  }

  /** The states reachable from {@code from} (unmodifiable). */
  public Set<S> next(S from) {
    return next.get(from);
  }

  /** Refuses {@code from -> to} unless it is listed. */
  public void check(S from, S to) throws IllegalTransitionException {
    if (!allows(from, to)) {
      throw new IllegalTransitionException(machine, from, to);
    }
  }

  /** Collects the allowed transitions; every state must be listed once, even with no successor. */
  public static final class Builder<S extends Enum<S>> {
    private final String machine;
    private final Class<S> type;
    private final Map<S, Set<S>> next;

    private Builder(String machine, Class<S> type) {
      this.machine = machine;
      this.type = type;
      this.next = new EnumMap<>(type);
    }

    @SafeVarargs
    public final Builder<S> from(S from, S... to) {
      if (next.containsKey(from)) {
        throw new IllegalArgumentException(machine + ": state " + from + " listed twice");
      }
      Set<S> targets = EnumSet.noneOf(type);
      targets.addAll(Arrays.asList(to));
      next.put(from, Collections.unmodifiableSet(targets));
      return this;
    }

    public TransitionTable<S> build() {
      for (S s : type.getEnumConstants()) {
        if (!next.containsKey(s)) {
          throw new IllegalArgumentException(machine + ": state " + s + " has no row");
        }
      }
      return new TransitionTable<>(machine, Collections.unmodifiableMap(new EnumMap<>(next)));
    }
  }
}
