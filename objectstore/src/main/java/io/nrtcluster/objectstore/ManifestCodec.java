package io.nrtcluster.objectstore;

import io.nrtcluster.common.Internal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.codecs.CodecUtil;
import org.apache.lucene.index.CorruptIndexException;
import org.apache.lucene.index.IndexFormatTooNewException;
import org.apache.lucene.index.IndexFormatTooOldException;
import org.apache.lucene.store.BufferedChecksumIndexInput;
import org.apache.lucene.store.ByteBuffersDataInput;
import org.apache.lucene.store.ByteBuffersDataOutput;
import org.apache.lucene.store.ByteBuffersIndexInput;
import org.apache.lucene.store.ByteBuffersIndexOutput;
import org.apache.lucene.store.ChecksumIndexInput;

/**
 * The manifest's bytes: a Lucene codec header (name and {@link #FORMAT_CURRENT format version}), the
 * fields, and a CRC32 footer over all of it, the way Lucene writes its own small files. A reader
 * refuses a manifest whose footer does not match, that is cut short, that has bytes past its footer or
 * whose format is newer than it knows, with a {@link CorruptBackupException} naming the object.
 */
@Internal
public final class ManifestCodec {
  static final String CODEC = "nrtcluster-backup-manifest";
  /** The first format. */
  public static final int FORMAT_START = 1;
  /** The format this code writes; readers accept {@link #FORMAT_START} to this. */
  public static final int FORMAT_CURRENT = FORMAT_START;

  private static final int MAX_FILES = 1 << 20;
  private static final int MAX_INFOS_BYTES = 64 << 20;

  private ManifestCodec() {}

  public static byte[] encode(Manifest m) throws IOException {
    ByteBuffersDataOutput buffer = new ByteBuffersDataOutput();
    try (ByteBuffersIndexOutput out = new ByteBuffersIndexOutput(buffer, "manifest", "manifest")) {
      CodecUtil.writeHeader(out, CODEC, FORMAT_CURRENT);
      out.writeVLong(m.version());
      out.writeVLong(m.primaryGen());
      out.writeZLong(m.infosGeneration());
      out.writeLong(m.createdEpochMillis());
      byte[] infos = m.infosBytes();
      out.writeVInt(infos.length);
      out.writeBytes(infos, infos.length);
      out.writeVInt(m.files().size());
      for (FileEntry f : m.files().values()) {
        out.writeString(f.name());
        out.writeVLong(f.length());
        out.writeInt((int) f.checksum());
      }
      out.writeMapOfStrings(new TreeMap<>(m.userData()));
      CodecUtil.writeFooter(out);
    }
    return buffer.toArrayCopy();
  }

  /** Parses the manifest stored at {@code key}; any damage is a {@link CorruptBackupException} naming it. */
  public static Manifest decode(String key, byte[] bytes) throws CorruptBackupException {
    try (ByteBuffersIndexInput whole = new ByteBuffersIndexInput(
            new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), key);
        ChecksumIndexInput in = new BufferedChecksumIndexInput(new ByteBuffersIndexInput(
            new ByteBuffersDataInput(List.of(ByteBuffer.wrap(bytes))), key))) {
      // The checksum first: a damaged length field must never drive an allocation.
      CodecUtil.checksumEntireFile(whole);
      CodecUtil.checkHeader(in, CODEC, FORMAT_START, FORMAT_CURRENT);
      long version = in.readVLong();
      long primaryGen = in.readVLong();
      long infosGeneration = in.readZLong();
      long created = in.readLong();
      int infosLength = bounded("infos length", in.readVInt(), MAX_INFOS_BYTES);
      byte[] infos = new byte[infosLength];
      in.readBytes(infos, 0, infosLength);
      int count = bounded("file count", in.readVInt(), MAX_FILES);
      TreeMap<String, FileEntry> files = new TreeMap<>();
      for (int i = 0; i < count; i++) {
        FileEntry f = new FileEntry(in.readString(), in.readVLong(), in.readInt() & 0xFFFFFFFFL);
        if (files.put(f.name(), f) != null) {
          throw new CorruptIndexException("file " + f.name() + " listed twice", in);
        }
      }
      Map<String, String> userData = new HashMap<>(in.readMapOfStrings());
      CodecUtil.checkFooter(in);
      if (in.getFilePointer() != bytes.length) {
        throw new CorruptIndexException("bytes after the footer", in);
      }
      return new Manifest(version, primaryGen, infosGeneration, infos, files, userData, created);
    } catch (IndexFormatTooNewException e) {
      throw new CorruptBackupException(key, "manifest " + key + " has a newer format than this version reads: " + e.getMessage(), e);
    } catch (IndexFormatTooOldException | CorruptIndexException e) {
      throw new CorruptBackupException(key, "manifest " + key + " is corrupt: " + e.getMessage(), e);
    } catch (IOException | RuntimeException e) {
      // EOF (cut short) or a field out of its bounds.
      throw new CorruptBackupException(key, "manifest " + key + " does not parse: " + e, e);
    }
  }

  private static int bounded(String what, int value, int max) throws IOException {
    if (value < 0 || value > max) {
      throw new CorruptIndexException(what + " out of bounds: " + value, "manifest");
    }
    return value;
  }
}
