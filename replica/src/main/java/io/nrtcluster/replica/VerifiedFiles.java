package io.nrtcluster.replica;

import io.nrtcluster.common.AtomicFiles;
import io.nrtcluster.common.StorageException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The durable record of which local index files were verified (their whole checksum recomputed, or
 * copied and checked in transit) since they were last written, and which files were found corrupt
 * and not yet replaced. Kept beside the node state file, outside the index directory (Lucene deletes
 * unknown files there).
 *
 * <p>A file counts as verified only while its {@link Stamp} (length, footer checksum, modification
 * time) is the one recorded: anything that rewrote it, even one byte from outside the process,
 * changes its modification time, so a restart reads it again. Bit rot that leaves the modification
 * time alone is what the background scrub is for.
 *
 * <p>The record vouches for its entries only after a clean stop of the process that wrote it (or
 * within that process): it carries a session line naming the process that uses it and whether that
 * process stopped cleanly. A process that was killed or crashed may have left files half written and
 * the record itself behind what happened last, so the next process reads every file again ({@link
 * #beginSession}).
 *
 * <p>Updates replace the file atomically (temp file, rename). Verified entries are written without
 * fsync (losing them costs a reread, never a wrong answer); the corrupt set is fsynced with its
 * directory, since forgetting it could let a node holding a corrupt file lead.
 */
final class VerifiedFiles {
  /** What identifies one written version of a file. */
  record Stamp(long length, long checksum, long modifiedNanos) {}

  private static final String VERIFIED = "V";
  private static final String CORRUPT = "C";
  private static final String SESSION = "S";
  private static final String CLEAN = "clean";
  private static final String OPEN = "open";
  /** This process, as named in the session line: unique per process (and class loader). */
  static final String THIS_PROCESS = UUID.randomUUID().toString();

  private final Path file;
  private final Map<String, Stamp> verified = new HashMap<>();
  private final TreeSet<String> corrupt = new TreeSet<>();
  /** Immutable copy of {@link #corrupt}, replaced whenever it changes. */
  private volatile List<String> corruptNow = List.of();
  /** The process the session line names, or null when the record has none (new, or an older format). */
  private String session;
  /** Whether that process stopped cleanly. */
  private boolean clean;

  private VerifiedFiles(Path file) {
    this.file = file;
  }

  /** Opens the record at {@code file}; an unreadable or malformed record is empty (everything is read again). */
  static VerifiedFiles open(Path file) {
    VerifiedFiles v = new VerifiedFiles(file);
    if (!Files.exists(file)) {
      return v;
    }
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      String line;
      while ((line = in.readLine()) != null) {
        String[] f = line.split(" ");
        if (f.length == 5 && f[0].equals(VERIFIED)) {
          v.verified.put(f[1], new Stamp(Long.parseLong(f[2]), Long.parseLong(f[3]), Long.parseLong(f[4])));
        } else if (f.length == 2 && f[0].equals(CORRUPT)) {
          v.corrupt.add(f[1]);
        } else if (f.length == 3 && f[0].equals(SESSION)) {
          v.session = f[1];
          v.clean = f[2].equals(CLEAN);
        }
      }
    } catch (IOException | RuntimeException e) {
      // Costs a full verification, never a wrong answer; the corrupt names read so far are kept.
      v.verified.clear();
    }
    v.corruptNow = List.copyOf(v.corrupt);
    return v;
  }

  /**
   * This process starts using the record to decide what to read at start: unless the process that
   * wrote it last stopped cleanly (or is this one), every verified entry is dropped, so every file is
   * read again. The record then names this process as using it, not stopped cleanly (durable), so a
   * crash from here on is noticed by the next process. Returns whether the entries were dropped.
   */
  synchronized boolean beginSession() throws StorageException {
    boolean trusted = clean || THIS_PROCESS.equals(session);
    boolean dropped = !trusted && !verified.isEmpty();
    if (!trusted) {
      verified.clear();
    }
    if (!THIS_PROCESS.equals(session) || clean) {
      session = THIS_PROCESS;
      clean = false;
      write(true);
    }
    return dropped;
  }

  /** This process stopped using the record cleanly: the next process may trust its entries (durable). */
  synchronized void endSessionCleanly() throws StorageException {
    if (THIS_PROCESS.equals(session) && !clean) {
      clean = true;
      write(true);
    }
  }

  synchronized boolean isVerified(String name, Stamp stamp) {
    return stamp.equals(verified.get(name));
  }

  /** Whether {@code name} is recorded with this length and checksum (whatever its modification time). */
  synchronized boolean has(String name, long length, long checksum) {
    Stamp s = verified.get(name);
    return s != null && s.length() == length && s.checksum() == checksum;
  }

  /** Records {@code stamps} as verified, drops every other verified entry not in {@code keep}. */
  synchronized void record(Map<String, Stamp> stamps, Collection<String> keep) throws StorageException {
    boolean changed = verified.keySet().retainAll(keep);
    for (Map.Entry<String, Stamp> e : stamps.entrySet()) {
      changed |= !e.getValue().equals(verified.put(e.getKey(), e.getValue()));
    }
    if (changed) {
      write(false);
    }
  }

  /**
   * Forgets that {@code name} was verified: the next check reads it again. Durable (fsynced), unlike
   * a new verified entry: {@code name} was found corrupt, and a record that still vouched for it
   * after a crash would let the next start trust it.
   */
  synchronized void forget(String name) throws StorageException {
    if (verified.remove(name) != null) {
      write(true);
    }
  }

  /** Records that {@code names} were found corrupt and are not replaced yet (durable). */
  synchronized void markCorrupt(Collection<String> names) throws StorageException {
    verified.keySet().removeAll(names);
    if (corrupt.addAll(names)) {
      write(true);
    }
  }

  /**
   * The corrupt files not replaced yet, sorted. Without the monitor: status and the member record
   * read it while an update may be writing the record to disk.
   */
  List<String> corrupt() {
    return corruptNow;
  }

  /** A verified point-in-time from a primary was installed: what was corrupt is replaced (durable). */
  synchronized void clearCorrupt() throws StorageException {
    if (!corrupt.isEmpty()) {
      corrupt.clear();
      write(true);
    }
  }

  private void write(boolean sync) throws StorageException {
    corruptNow = List.copyOf(corrupt);
    try {
      AtomicFiles.replace(file, out -> {
        Writer w = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        if (session != null) {
          w.write(SESSION + " " + session + " " + (clean ? CLEAN : OPEN) + "\n");
        }
        for (String name : corrupt) {
          w.write(CORRUPT + " " + name + "\n");
        }
        for (Map.Entry<String, Stamp> e : verified.entrySet()) {
          Stamp s = e.getValue();
          w.write(VERIFIED + " " + e.getKey() + " " + s.length() + " " + s.checksum() + " " + s.modifiedNanos() + "\n");
        }
        w.flush();
      }, sync);
    } catch (IOException e) {
      throw new StorageException("cannot write the record of verified files " + file, e);
    }
  }
}
