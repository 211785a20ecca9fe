package io.nrtcluster.common;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.AccessMode;
import java.nio.file.CopyOption;
import java.nio.file.DirectoryStream;
import java.nio.file.FileStore;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.nio.file.ProviderMismatchException;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileAttributeView;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.nio.file.spi.FileSystemProvider;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The default file system, unchanged, that records every {@code force} (fsync) of a channel opened
 * through it and every move (rename), in order. Code under test gets paths of this file system
 * ({@link #wrap}) and does its ordinary {@code java.nio.file} calls; the test then reads {@link
 * #events()}. Like Lucene's test-framework mock file systems, in a few lines and without their
 * dependencies.
 */
final class RecordingFileSystem extends FileSystem {
  /** What happened, with the real (default file system) path it happened to. */
  enum Kind {
    FORCE_FILE,
    FORCE_DIRECTORY,
    MOVE
  }

  /** One recorded call; for a move, {@code path} is the target. */
  record Event(Kind kind, Path path) {}

  private final FileSystem delegate = FileSystems.getDefault();
  private final Provider provider = new Provider();
  private final List<Event> events = new CopyOnWriteArrayList<>();

  /** The path of this file system that stands for the default file system's {@code path}. */
  Path wrap(Path path) {
    return path == null ? null : new RecordingPath(this, path);
  }

  /** Everything recorded so far, oldest first. */
  List<Event> events() {
    return List.copyOf(events);
  }

  void clear() {
    events.clear();
  }

  static Path unwrap(Path path) {
    if (path instanceof RecordingPath p) {
      return p.delegate;
    }
    throw new ProviderMismatchException("not a recording path: " + path);
  }

  @Override
  public FileSystemProvider provider() {
    return provider;
  }

  @Override
  public void close() {
    throw new UnsupportedOperationException();
  }

  @Override
  public boolean isOpen() {
    return true;
  }

  @Override
  public boolean isReadOnly() {
    return false;
  }

  @Override
  public String getSeparator() {
    return delegate.getSeparator();
  }

  @Override
  public Iterable<Path> getRootDirectories() {
    List<Path> roots = new ArrayList<>();
    delegate.getRootDirectories().forEach(r -> roots.add(wrap(r)));
    return roots;
  }

  @Override
  public Iterable<FileStore> getFileStores() {
    return delegate.getFileStores();
  }

  @Override
  public Set<String> supportedFileAttributeViews() {
    return delegate.supportedFileAttributeViews();
  }

  @Override
  public Path getPath(String first, String... more) {
    return wrap(delegate.getPath(first, more));
  }

  @Override
  public PathMatcher getPathMatcher(String syntaxAndPattern) {
    PathMatcher m = delegate.getPathMatcher(syntaxAndPattern);
    return p -> m.matches(unwrap(p));
  }

  @Override
  public UserPrincipalLookupService getUserPrincipalLookupService() {
    return delegate.getUserPrincipalLookupService();
  }

  @Override
  public WatchService newWatchService() {
    throw new UnsupportedOperationException();
  }

  private final class Provider extends FileSystemProvider {
    private final FileSystemProvider real = delegate.provider();

    @Override
    public String getScheme() {
      return "recording";
    }

    @Override
    public FileSystem newFileSystem(URI uri, Map<String, ?> env) {
      throw new UnsupportedOperationException();
    }

    @Override
    public FileSystem getFileSystem(URI uri) {
      return RecordingFileSystem.this;
    }

    @Override
    public Path getPath(URI uri) {
      return wrap(real.getPath(uri));
    }

    @Override
    public FileChannel newFileChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
        throws IOException {
      Path p = unwrap(path);
      return new RecordingChannel(real.newFileChannel(p, options, attrs), p, Files.isDirectory(p));
    }

    @Override
    public SeekableByteChannel newByteChannel(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
        throws IOException {
      return newFileChannel(path, options, attrs);
    }

    @Override
    public InputStream newInputStream(Path path, OpenOption... options) throws IOException {
      return real.newInputStream(unwrap(path), options);
    }

    @Override
    public OutputStream newOutputStream(Path path, OpenOption... options) throws IOException {
      // A stream cannot be forced: only channels are recorded.
      return real.newOutputStream(unwrap(path), options);
    }

    @Override
    public DirectoryStream<Path> newDirectoryStream(Path dir, DirectoryStream.Filter<? super Path> filter)
        throws IOException {
      DirectoryStream<Path> stream = real.newDirectoryStream(unwrap(dir), p -> filter.accept(wrap(p)));
      return new DirectoryStream<>() {
        @Override
        public Iterator<Path> iterator() {
          Iterator<Path> it = stream.iterator();
          return new Iterator<>() {
            @Override
            public boolean hasNext() {
              return it.hasNext();
            }

            @Override
            public Path next() {
              return wrap(it.next());
            }
          };
        }

        @Override
        public void close() throws IOException {
          stream.close();
        }
      };
    }

    @Override
    public void createDirectory(Path dir, FileAttribute<?>... attrs) throws IOException {
      real.createDirectory(unwrap(dir), attrs);
    }

    @Override
    public void delete(Path path) throws IOException {
      real.delete(unwrap(path));
    }

    @Override
    public void copy(Path source, Path target, CopyOption... options) throws IOException {
      real.copy(unwrap(source), unwrap(target), options);
    }

    @Override
    public void move(Path source, Path target, CopyOption... options) throws IOException {
      real.move(unwrap(source), unwrap(target), options);
      events.add(new Event(Kind.MOVE, unwrap(target)));
    }

    @Override
    public boolean isSameFile(Path path, Path path2) throws IOException {
      return real.isSameFile(unwrap(path), unwrap(path2));
    }

    @Override
    public boolean isHidden(Path path) throws IOException {
      return real.isHidden(unwrap(path));
    }

    @Override
    public FileStore getFileStore(Path path) throws IOException {
      return real.getFileStore(unwrap(path));
    }

    @Override
    public void checkAccess(Path path, AccessMode... modes) throws IOException {
      real.checkAccess(unwrap(path), modes);
    }

    @Override
    public <V extends FileAttributeView> V getFileAttributeView(Path path, Class<V> type, LinkOption... options) {
      return real.getFileAttributeView(unwrap(path), type, options);
    }

    @Override
    public <A extends BasicFileAttributes> A readAttributes(Path path, Class<A> type, LinkOption... options)
        throws IOException {
      return real.readAttributes(unwrap(path), type, options);
    }

    @Override
    public Map<String, Object> readAttributes(Path path, String attributes, LinkOption... options) throws IOException {
      return real.readAttributes(unwrap(path), attributes, options);
    }

    @Override
    public void setAttribute(Path path, String attribute, Object value, LinkOption... options) throws IOException {
      real.setAttribute(unwrap(path), attribute, value, options);
    }
  }

  /** A channel that records {@link #force} and otherwise is the real one. */
  private final class RecordingChannel extends FileChannel {
    private final FileChannel in;
    private final Path path;
    private final boolean directory;

    RecordingChannel(FileChannel in, Path path, boolean directory) {
      this.in = in;
      this.path = path;
      this.directory = directory;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      in.force(metaData);
      events.add(new Event(directory ? Kind.FORCE_DIRECTORY : Kind.FORCE_FILE, path));
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return in.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return in.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return in.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      return in.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
      return in.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      in.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return in.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      in.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
      return in.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
      return in.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return in.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return in.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return in.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return in.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return in.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
      in.close();
    }
  }

  /** A default file system path seen through the recording file system. */
  private static final class RecordingPath implements Path {
    private final RecordingFileSystem fs;
    private final Path delegate;

    RecordingPath(RecordingFileSystem fs, Path delegate) {
      this.fs = fs;
      this.delegate = delegate;
    }

    private Path wrap(Path p) {
      return fs.wrap(p);
    }

    @Override
    public FileSystem getFileSystem() {
      return fs;
    }

    @Override
    public boolean isAbsolute() {
      return delegate.isAbsolute();
    }

    @Override
    public Path getRoot() {
      return wrap(delegate.getRoot());
    }

    @Override
    public Path getFileName() {
      return wrap(delegate.getFileName());
    }

    @Override
    public Path getParent() {
      return wrap(delegate.getParent());
    }

    @Override
    public int getNameCount() {
      return delegate.getNameCount();
    }

    @Override
    public Path getName(int index) {
      return wrap(delegate.getName(index));
    }

    @Override
    public Path subpath(int beginIndex, int endIndex) {
      return wrap(delegate.subpath(beginIndex, endIndex));
    }

    @Override
    public boolean startsWith(Path other) {
      return other instanceof RecordingPath && delegate.startsWith(unwrap(other));
    }

    @Override
    public boolean endsWith(Path other) {
      return other instanceof RecordingPath && delegate.endsWith(unwrap(other));
    }

    @Override
    public Path normalize() {
      return wrap(delegate.normalize());
    }

    @Override
    public Path resolve(Path other) {
      return wrap(delegate.resolve(unwrap(other)));
    }

    @Override
    public Path relativize(Path other) {
      return wrap(delegate.relativize(unwrap(other)));
    }

    @Override
    public URI toUri() {
      return delegate.toUri();
    }

    @Override
    public Path toAbsolutePath() {
      return wrap(delegate.toAbsolutePath());
    }

    @Override
    public Path toRealPath(LinkOption... options) throws IOException {
      return wrap(delegate.toRealPath(options));
    }

    @Override
    public WatchKey register(WatchService watcher, WatchEvent.Kind<?>[] events, WatchEvent.Modifier... modifiers) {
      throw new UnsupportedOperationException();
    }

    @Override
    public int compareTo(Path other) {
      return delegate.compareTo(unwrap(other));
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof RecordingPath p && p.fs == fs && p.delegate.equals(delegate);
    }

    @Override
    public int hashCode() {
      return delegate.hashCode();
    }

    @Override
    public String toString() {
      return delegate.toString();
    }
  }
}
