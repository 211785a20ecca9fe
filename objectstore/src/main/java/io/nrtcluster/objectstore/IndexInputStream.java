package io.nrtcluster.objectstore;

import java.io.IOException;
import java.io.InputStream;
import org.apache.lucene.store.IndexInput;

/**
 * A window of a Lucene {@link IndexInput} as an {@link InputStream}; closing it closes the input.
 * With an {@link UploadCheck}, every byte passes the check before it is handed over.
 */
final class IndexInputStream extends InputStream {
  private final IndexInput in;
  private final UploadCheck check;
  private long pos;
  private long remaining;

  IndexInputStream(IndexInput in, long offset, long length) throws IOException {
    this(in, offset, length, null);
  }

  IndexInputStream(IndexInput in, long offset, long length, UploadCheck check) throws IOException {
    this.in = in;
    this.check = check;
    if (check != null) {
      check.checkLength(in.length());
    }
    in.seek(offset);
    this.pos = offset;
    this.remaining = length;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (remaining <= 0) {
      return -1;
    }
    if (len == 0) {
      return 0;
    }
    long n = Math.min(len, remaining);
    if (check != null && pos < check.checksumStart()) {
      n = Math.min(n, check.checksumStart() - pos);
    }
    in.readBytes(b, off, (int) n);
    if (check != null) {
      check.accept(pos, b, off, (int) n);
    }
    pos += n;
    remaining -= n;
    return (int) n;
  }

  @Override
  public long skip(long n) throws IOException {
    if (check != null) {
      return super.skip(n); // reads what it skips, so the check sees every byte
    }
    long k = Math.max(0, Math.min(n, remaining));
    in.seek(in.getFilePointer() + k);
    pos += k;
    remaining -= k;
    return k;
  }

  @Override
  public int available() {
    return (int) Math.min(Integer.MAX_VALUE, remaining);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }
}
