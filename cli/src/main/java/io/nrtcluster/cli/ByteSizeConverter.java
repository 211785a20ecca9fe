package io.nrtcluster.cli;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads sizes the way people write them and {@link Units#bytes} prints them: {@code 32MiB}, {@code
 * 512KiB}, {@code 1.5GiB}, {@code 4096}; a bare number means bytes. {@code K}, {@code KB}, {@code M},
 * {@code MB}, {@code G}, {@code GB} are binary too (1024-based, as the JVM's {@code -Xmx} reads them),
 * any case, with or without a space.
 */
final class ByteSizeConverter implements ITypeConverter<Long> {
  private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");

  @Override
  public Long convert(String value) {
    return parse(value);
  }

  static long parse(String value) {
    String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    Matcher m = SIZE.matcher(text);
    if (!m.matches()) {
      throw invalid(value);
    }
    String unit = m.group(2) == null ? "b" : m.group(2);
    double factor = switch (unit.charAt(0)) {
      case 'k' -> 1024.0;
      case 'm' -> 1024.0 * 1024;
      case 'g' -> 1024.0 * 1024 * 1024;
      default -> 1;
    };
    double bytes = Double.parseDouble(m.group(1)) * factor;
    if (bytes != Math.rint(bytes) || bytes > Long.MAX_VALUE / 2.0) {
      throw invalid(value);
    }
    return (long) bytes;
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException("'" + value + "' is not a size in bytes (examples: 32MiB, 512KiB, 1GiB, 4096)");
  }
}
