package io.nrtcluster.cli;

import io.nrtcluster.stress.EuroparlDocs;
import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.Term;

/**
 * The demo's document source, standing in for an application's own (a queue, a table): an
 * append-only log of upserts that can be replayed from any position. Entry {@code k} sets the
 * document with id {@code id(k)} to Europarl line {@code k} (the corpus repeats when exhausted), so
 * applying entries again in order is idempotent.
 *
 * <p>Positions read {@code docs-<count>}: how many entries were applied before that point, counted
 * on from {@code base} (the position a previous run in the same directory ended at), so that a
 * position left by an earlier run always reads as "before this run".
 */
final class SourceLog implements Closeable {
  static final String PREFIX = "docs-";
  /** Share of entries that add a new document; the others give an existing one a new text. */
  static final double ADD_SHARE = 0.8;

  private final EuroparlDocs corpus;
  private final List<EuroparlDocs.Line> lines = new ArrayList<>();
  private boolean corpusComplete;
  private final Random random;
  private final long base;
  private final long firstId;
  private long nextId;
  private int[] ids = new int[4096];
  private int size;
  private long updates;

  /**
   * @param firstId the id of the first new document (above every id already in the index)
   * @param base the count the index's replay position stands at now ({@link #count})
   */
  SourceLog(long seed, long firstId, long base) throws IOException {
    this.corpus = new EuroparlDocs();
    this.random = new Random(seed);
    this.firstId = firstId;
    this.nextId = firstId;
    this.base = base;
  }

  /** The count of a position ({@code docs-1200}: 1200); 0 for null or a position of another shape. */
  static long count(String position) {
    if (position != null && position.startsWith(PREFIX)) {
      try {
        return Math.max(0, Long.parseLong(position.substring(PREFIX.length())));
      } catch (NumberFormatException e) {
        // Not one of ours.
      }
    }
    return 0;
  }

  /** Appends one entry, mostly a new document, sometimes a new text for an earlier one; returns it. */
  int append() {
    long id;
    if (nextId == firstId || random.nextDouble() < ADD_SHARE) {
      id = nextId++;
    } else {
      id = firstId + random.nextLong(nextId - firstId);
      updates++;
    }
    if (size == ids.length) {
      ids = Arrays.copyOf(ids, size * 2);
    }
    ids[size] = Math.toIntExact(id - firstId);
    return size++;
  }

  int size() {
    return size;
  }

  /** The position after every entry so far. */
  String position() {
    return position(size);
  }

  /** The position after the first {@code entries} entries of this run. */
  String position(int entries) {
    return PREFIX + (base + entries);
  }

  /**
   * The first entry to apply again on a primary whose replay position is {@code position}: 0 (all
   * of this run) when the position predates this run or is not one of ours.
   */
  int replayFrom(String position) {
    long n = count(position) - base;
    return n < 0 || n > size ? 0 : (int) n;
  }

  Term idTerm(int entry) {
    return new Term("id", Long.toString(firstId + ids[entry]));
  }

  Document document(int entry) {
    return EuroparlDocs.toDocument(Long.toString(firstId + ids[entry]), line(entry));
  }

  private EuroparlDocs.Line line(int entry) {
    while (!corpusComplete && lines.size() <= entry) {
      int passes = corpus.passes();
      EuroparlDocs.Line l = corpus.next();
      if (corpus.passes() != passes) {
        corpusComplete = true; // Started over: every line is in the list.
      } else {
        lines.add(l);
      }
    }
    return lines.get(entry % lines.size());
  }

  /** Distinct document ids this run's entries wrote. */
  long distinctIds() {
    return nextId - firstId;
  }

  long adds() {
    return distinctIds();
  }

  long updates() {
    return updates;
  }

  /** Europarl lines read so far. */
  long linesRead() {
    return lines.size();
  }

  @Override
  public void close() throws IOException {
    corpus.close();
  }
}
