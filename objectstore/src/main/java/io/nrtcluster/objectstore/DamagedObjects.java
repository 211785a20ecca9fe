package io.nrtcluster.objectstore;

import io.nrtcluster.common.Experimental;
import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The store keys of one index's objects that a verification found damaged ({@link BackupVerifier}),
 * so that the next backup naming one uploads a fresh copy instead of reusing it: a backup cannot tell
 * by itself, since it checks a stored object by its length only (reading every object back on every
 * backup would cost what incremental backups save). A {@link BackupService} given this set consults it
 * for every file and removes a key once its fresh copy is stored; the verification's caller adds keys.
 *
 * <p>One per index (keys name an index's objects), shared by its verification and its backups; held in
 * memory only, so a restart forgets it until the next verification. Thread-safe; a key added while a
 * backup uploads it at most costs one more upload by the next backup.
 */
@Experimental
public final class DamagedObjects {
  private final Set<String> keys = ConcurrentHashMap.newKeySet();

  /** Marks {@code key} damaged. */
  public void add(String key) {
    keys.add(key);
  }

  /** Marks every key of {@code damaged} damaged. */
  public void addAll(Collection<String> damaged) {
    keys.addAll(damaged);
  }

  /** Whether {@code key} is marked damaged. */
  public boolean contains(String key) {
    return keys.contains(key);
  }

  /** Unmarks {@code key} (its fresh copy is stored); returns whether it was marked. */
  public boolean remove(String key) {
    return keys.remove(key);
  }

  /** The keys marked now, an immutable copy. */
  public Set<String> keys() {
    return Set.copyOf(keys);
  }

  /** How many keys are marked. */
  public int size() {
    return keys.size();
  }
}
