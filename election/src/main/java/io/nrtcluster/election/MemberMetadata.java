package io.nrtcluster.election;

import io.nrtcluster.common.Internal;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The bounds of the application metadata a member record carries ({@link MemberInfo#metadata()}):
 * at most {@value #MAX_ENTRIES} entries; keys are 1-{@value #MAX_KEY_LENGTH} of {@code
 * [A-Za-z0-9_.-]} starting with a letter or digit; values are at most {@value #MAX_VALUE_LENGTH}
 * characters without control characters or unpaired UTF-16 surrogates; all keys and values together
 * at most {@value #MAX_TOTAL_LENGTH} characters. Small, because every member record is read by every
 * node of the index at each election and by every status request.
 */
@Internal
public final class MemberMetadata {
  public static final int MAX_ENTRIES = 16;
  public static final int MAX_KEY_LENGTH = 64;
  public static final int MAX_VALUE_LENGTH = 1024;
  public static final int MAX_TOTAL_LENGTH = 4096;

  private MemberMetadata() {}

  /**
   * An unmodifiable copy of {@code metadata} (null: empty), sorted by key, after checking the
   * bounds; an {@link IllegalArgumentException} naming {@code field} and the bad entry otherwise.
   */
  public static Map<String, String> checked(String field, Map<String, String> metadata) {
    if (metadata == null || metadata.isEmpty()) {
      return Map.of();
    }
    if (metadata.size() > MAX_ENTRIES) {
      throw new IllegalArgumentException(field + " must have at most " + MAX_ENTRIES + " entries, got " + metadata.size());
    }
    TreeMap<String, String> copy = new TreeMap<>();
    int total = 0;
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      String key = e.getKey();
      String value = e.getValue();
      if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH || !key.matches("[A-Za-z0-9][A-Za-z0-9_.-]*")) {
        throw new IllegalArgumentException(field + " keys must be 1-" + MAX_KEY_LENGTH
            + " of [A-Za-z0-9_.-] starting with a letter or digit, got '" + key + "'");
      }
      if (value == null) {
        throw new IllegalArgumentException(field + "." + key + " must be set");
      }
      if (value.length() > MAX_VALUE_LENGTH) {
        throw new IllegalArgumentException(field + "." + key + " must be at most " + MAX_VALUE_LENGTH + " characters, got " + value.length());
      }
      requirePrintable(field + "." + key, value);
      total += key.length() + value.length();
      copy.put(key, value);
    }
    if (total > MAX_TOTAL_LENGTH) {
      throw new IllegalArgumentException(field + " must total at most " + MAX_TOTAL_LENGTH + " characters of keys and values, got " + total);
    }
    return Collections.unmodifiableMap(copy);
  }

  private static void requirePrintable(String field, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c) || Character.isISOControl(c)) {
        throw new IllegalArgumentException(field + " must not contain control characters or unpaired surrogates (at character " + i + ")");
      }
    }
  }
}
