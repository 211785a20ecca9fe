package io.nrtcluster.objectstore;

import java.io.IOException;
import java.io.InputStream;
import org.apache.lucene.store.IndexInput;

/** A window of a Lucene {@link IndexInput} as an {@link InputStream}; closing it closes the input. */
final class IndexInputStream extends InputStream {
  private final IndexInput in;
  private long remaining;

  IndexInputStream(IndexInput in, long offset, long length) throws IOException {
    this.in = in;
    in.seek(offset);
    this.remaining = length;
  }

  @Override
  public int read() throws IOException {
    if (remaining <= 0) {
      return -1;
    }
    remaining--;
    return in.readByte() & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (remaining <= 0) {
      return -1;
    }
    int n = (int) Math.min(len, remaining);
    in.readBytes(b, off, n);
    remaining -= n;
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long k = Math.max(0, Math.min(n, remaining));
    in.seek(in.getFilePointer() + k);
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
