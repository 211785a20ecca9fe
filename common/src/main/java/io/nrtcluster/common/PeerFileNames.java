package io.nrtcluster.common;

/**
 * The only file names nrtcluster ever reads or writes on behalf of a peer: plain Lucene index file
 * names. Anything with a path separator, a parent reference, an absolute form, a control character
 * or an unusual character is refused before it can be joined to a directory. (Lucene's own {@code
 * org.apache.lucene.index.IndexFileNames} builds names; this class only checks names a peer sent.)
 */
@Internal
public final class PeerFileNames {
  private static final int MAX_LENGTH = 255;

  private PeerFileNames() {}

  /** True when {@code name} is a plain file name of the kind Lucene writes. */
  public static boolean isSafe(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_LENGTH) {
      return false;
    }
    if (name.equals(".") || name.equals("..") || name.contains("..")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** Returns {@code name} or throws {@link FileNotServableException} naming why it was refused. */
  public static String requireSafe(String name) throws FileNotServableException {
    if (!isSafe(name)) {
      throw new FileNotServableException("refusing unsafe file name '" + printable(name) + "'");
    }
    return name;
  }

  private static String printable(String name) {
    if (name == null) {
      return "null";
    }
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < Math.min(name.length(), 100); i++) {
      char c = name.charAt(i);
      sb.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    return sb.toString();
  }
}
