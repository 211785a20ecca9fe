package io.nrtcluster.stress;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.lucene.index.CheckIndex;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * The end-of-run inspection of one stopped node's index directory: Lucene's {@link CheckIndex} with
 * checksum and integrity checks, and a list of files its last commit does not reference (leftovers of
 * interrupted copies that nobody cleaned).
 */
final class IndexAudit {
  private IndexAudit() {}

  /**
   * @param clean CheckIndex found no problem
   * @param problem what CheckIndex (or opening the index) reported, or null
   * @param unreferenced files the last commit does not reference
   * @param numDocs live documents of the last commit
   */
  record Result(int nodeId, boolean clean, String problem, List<String> unreferenced, long numDocs) {}

  static Result audit(int nodeId, Path indexDir) {
    if (!Files.isDirectory(indexDir)) {
      return new Result(nodeId, false, "no index directory " + indexDir, List.of(), 0);
    }
    try (Directory dir = FSDirectory.open(indexDir)) {
      SegmentInfos infos = SegmentInfos.readLatestCommit(dir);
      Set<String> referenced = new HashSet<>(infos.files(true));
      List<String> unreferenced = new ArrayList<>();
      for (String file : dir.listAll()) {
        if (!referenced.contains(file) && !file.equals(IndexWriter.WRITE_LOCK_NAME)) {
          unreferenced.add(file);
        }
      }
      ByteArrayOutputStream details = new ByteArrayOutputStream();
      try (CheckIndex check = new CheckIndex(dir)) {
        check.setLevel(CheckIndex.Level.MIN_LEVEL_FOR_INTEGRITY_CHECKS);
        check.setInfoStream(new PrintStream(details, true, StandardCharsets.UTF_8));
        CheckIndex.Status status = check.checkIndex();
        String problem = status.clean ? null : lastLines(details.toString(StandardCharsets.UTF_8), 5);
        return new Result(nodeId, status.clean, problem, List.copyOf(unreferenced), infos.totalMaxDoc() - deletions(infos));
      }
    } catch (IOException | RuntimeException e) {
      return new Result(nodeId, false, e.toString(), List.of(), 0);
    }
  }

  private static long deletions(SegmentInfos infos) {
    return infos.asList().stream().mapToLong(s -> s.getDelCount() + s.getSoftDelCount()).sum();
  }

  private static String lastLines(String text, int n) {
    String[] lines = text.strip().split("\n");
    return String.join(" | ", Arrays.asList(lines).subList(Math.max(0, lines.length - n), lines.length));
  }
}
