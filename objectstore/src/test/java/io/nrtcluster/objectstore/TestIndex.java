package io.nrtcluster.objectstore;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexCommit;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.KeepOnlyLastCommitDeletionPolicy;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.SnapshotDeletionPolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/** A real Lucene index for backup tests: documents with an id and words, commits held by snapshots until backed up. */
final class TestIndex implements Closeable {
  static final String[] WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"};

  final Directory dir;
  final IndexWriter writer;
  private final SnapshotDeletionPolicy snapshots;
  private final AtomicInteger nextId = new AtomicInteger();
  final AtomicInteger released = new AtomicInteger();

  TestIndex(Path path, boolean merges) throws IOException {
    dir = FSDirectory.open(path);
    snapshots = new SnapshotDeletionPolicy(new KeepOnlyLastCommitDeletionPolicy());
    IndexWriterConfig iwc = new IndexWriterConfig(new StandardAnalyzer()).setIndexDeletionPolicy(snapshots);
    if (!merges) {
      iwc.setMergePolicy(NoMergePolicy.INSTANCE);
    }
    writer = new IndexWriter(dir, iwc);
  }

  void add(int n, Random random) throws IOException {
    for (int i = 0; i < n; i++) {
      Document doc = new Document();
      doc.add(new StringField("id", Integer.toString(nextId.getAndIncrement()), Field.Store.YES));
      StringBuilder body = new StringBuilder();
      for (int w = 0; w < 8; w++) {
        body.append(WORDS[random.nextInt(WORDS.length)]).append(' ');
      }
      doc.add(new TextField("body", body.toString(), Field.Store.NO));
      writer.addDocument(doc);
    }
  }

  /** Adds {@code n} documents each storing {@code bytes} random (incompressible) bytes: one big stored-fields file. */
  void addLarge(int n, int bytes, Random random) throws IOException {
    for (int i = 0; i < n; i++) {
      Document doc = new Document();
      doc.add(new StringField("id", Integer.toString(nextId.getAndIncrement()), Field.Store.YES));
      byte[] blob = new byte[bytes];
      random.nextBytes(blob);
      doc.add(new StoredField("blob", blob));
      writer.addDocument(doc);
    }
  }

  /** Flips bit {@code bit} of byte {@code pos} of {@code file}, as a failing disk would. */
  static void flip(Path file, long pos, int bit) throws IOException {
    try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(file,
        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
      ch.read(b, pos);
      b.put(0, (byte) (b.get(0) ^ (1 << bit)));
      b.rewind();
      ch.write(b, pos);
    }
  }

  /** Commits, holds the commit, and describes it as a backup source whose release lets the commit go. */
  Commit commit(long primaryGen) throws IOException {
    writer.commit();
    IndexCommit commit = snapshots.snapshot();
    int docs;
    int alpha;
    try (DirectoryReader reader = DirectoryReader.open(commit)) {
      docs = reader.numDocs();
      alpha = new IndexSearcher(reader).count(new TermQuery(new Term("body", "alpha")));
    }
    SegmentInfos infos = SegmentInfos.readCommit(dir, commit.getSegmentsFileName());
    BackupPoint point = BackupPoint.of(dir, infos, primaryGen, Map.of("docs", Integer.toString(docs)));
    BackupSource source = BackupSource.of(dir, point, () -> {
      try {
        snapshots.release(commit);
        writer.deleteUnusedFiles();
        released.incrementAndGet();
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    });
    return new Commit(source, point, docs, alpha);
  }

  record Commit(BackupSource source, BackupPoint point, int docs, int alphaHits) {}

  /** Docs and "alpha" hits of the index in {@code dir}. */
  static int[] search(Directory dir) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      return new int[] {reader.numDocs(), new IndexSearcher(reader).count(new TermQuery(new Term("body", "alpha")))};
    }
  }

  @Override
  public void close() throws IOException {
    writer.close();
    dir.close();
  }
}
