package io.nrtcluster.replica;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.CRC32;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.replicator.nrt.FileMetaData;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.IOContext;
import org.apache.lucene.store.IndexInput;

/**
 * Rereads what a copy wrote before its connection dropped, before the copy resumes on a new one: the
 * running checksum kept in memory says what was received, not what is on disk now, and the disk may
 * have changed while the link was down. Reading back is cheap next to sending the bytes again. Runs
 * outside the copy job's monitor (it may read a large file), on a snapshot the job takes.
 */
final class TempFileRecheck {
  private static final int BUFFER = 1 << 20;

  private TempFileRecheck() {}

  /**
   * What to reread: the partly copied file's temp file (null when none) up to {@code offset}, its
   * body ending at {@code bodyEnd}, and the finished temp files by file name.
   */
  record Request(String partialTmp, long offset, long bodyEnd, Map<String, String> finished) {}

  /**
   * What the disk holds: the partly copied file's checksum state (null when it is shorter or
   * unreadable) and the names of finished files whose temp file is not exactly the expected file.
   */
  record Result(Request request, Prefix partial, Set<String> changedFinished) {}

  /** Rereads everything {@code request} names from the index folder {@code folder} (directory {@code dir}). */
  static Result run(Request request, Path folder, Directory dir, Map<String, FileMetaData> metas) {
    Prefix partial = request.partialTmp() == null ? null
        : prefix(folder.resolve(request.partialTmp()), request.offset(), request.bodyEnd());
    Set<String> changed = new HashSet<>();
    for (Map.Entry<String, String> e : request.finished().entrySet()) {
      if (!intact(dir, e.getValue(), metas.get(e.getKey()))) {
        changed.add(e.getKey());
      }
    }
    return new Result(request, partial, changed);
  }

  /** Checksum state of a file's first bytes: the body's CRC32 and the footer's checksum bytes so far. */
  record Prefix(CRC32 crc, long trailer) {}

  /**
   * The checksum state of the first {@code bytes} bytes of {@code file} whose body ends at {@code
   * bodyEnd}, as on disk now; null when the file is shorter or cannot be read.
   */
  static Prefix prefix(Path file, long bytes, long bodyEnd) {
    CRC32 crc = new CRC32();
    long trailer = 0;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      if (ch.size() < bytes) {
        return null;
      }
      ByteBuffer buf = ByteBuffer.allocate(BUFFER);
      long pos = 0;
      while (pos < bytes) {
        buf.clear().limit((int) Math.min(BUFFER, bytes - pos));
        int n = ch.read(buf, pos);
        if (n < 0) {
          return null;
        }
        buf.flip();
        int body = (int) Math.max(0, Math.min(n, bodyEnd - pos));
        if (body > 0) {
          crc.update(buf.slice(0, body));
        }
        for (int i = body; i < n; i++) {
          trailer = (trailer << 8) | (buf.get(i) & 0xFF);
        }
        pos += n;
      }
    } catch (IOException e) {
      return null;
    }
    return new Prefix(crc, trailer);
  }

  /** True when temp file {@code tmpName} is exactly the file {@code meta} describes, every byte checked. */
  static boolean intact(Directory dir, String tmpName, FileMetaData meta) {
    try (IndexInput in = dir.openInput(tmpName, IOContext.READONCE)) {
      return in.length() == meta.length() && CodecUtil.checksumEntireFile(in) == meta.checksum();
    } catch (IOException e) {
      return false;
    }
  }
}
