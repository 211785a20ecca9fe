package io.nrtcluster.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations the way people write them: {@code 20s}, {@code 500ms}, {@code 2m}, {@code 1m30s},
 * {@code 1h}; a bare number means seconds; ISO-8601 ({@code PT20S}) works too.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern PART = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)");
  private static final Pattern WHOLE = Pattern.compile("(?:\\d+(?:\\.\\d+)?(?:ms|s|m|h))+");

  @Override
  public Duration convert(String value) {
    return parse(value);
  }

  public static Duration parse(String value) {
    String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    if (text.startsWith("pt")) {
      try {
        return Duration.parse(text.toUpperCase(Locale.ROOT));
      } catch (DateTimeParseException e) {
        throw invalid(value);
      }
    }
    if (text.matches("\\d+(?:\\.\\d+)?")) {
      text = text + "s";
    }
    if (!WHOLE.matcher(text).matches()) {
      throw invalid(value);
    }
    double nanos = 0;
    Matcher m = PART.matcher(text);
    while (m.find()) {
      double amount = Double.parseDouble(m.group(1));
      nanos += amount * switch (m.group(2)) {
        case "ms" -> 1e6;
        case "s" -> 1e9;
        case "m" -> 60e9;
        default -> 3600e9;
      };
    }
    if (nanos > Long.MAX_VALUE / 2.0) {
      throw invalid(value);
    }
    return Duration.ofNanos((long) nanos);
  }

  private static TypeConversionException invalid(String value) {
    return new TypeConversionException("'" + value + "' is not a duration (examples: 20s, 500ms, 2m, 1m30s)");
  }
}
