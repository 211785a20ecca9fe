package io.nrtcluster.examples.search;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The plumbing every handler shares: query parameters, a size-bounded request body, JSON replies.
 * A body is never read past the limit, so an oversized request costs at most limit + 1 bytes.
 */
final class Exchanges {
  static final String JSON = "application/json; charset=utf-8";

  private Exchanges() {}

  /** Query parameters, URL-decoded; the last of repeated names wins. A malformed escape is a 400. */
  static Map<String, String> query(HttpExchange exchange) {
    String raw = exchange.getRequestURI().getRawQuery();
    Map<String, String> params = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return params;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      try {
        String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        params.put(name, value);
      } catch (IllegalArgumentException e) {
        throw new ApiException(ApiError.BAD_REQUEST, "malformed query string: " + e.getMessage());
      }
    }
    return params;
  }

  /**
   * The request body, at most {@code maxBytes}; a declared or actual larger body is a 413 (a
   * declared one is refused before any byte is read).
   */
  static byte[] body(HttpExchange exchange, int maxBytes) throws IOException {
    String declared = exchange.getRequestHeaders().getFirst("Content-Length");
    if (declared != null) {
      long length;
      try {
        length = Long.parseLong(declared.trim());
      } catch (NumberFormatException e) {
        throw new ApiException(ApiError.BAD_REQUEST, "malformed Content-Length: " + declared);
      }
      if (length > maxBytes) {
        throw tooLarge(maxBytes);
      }
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[8192];
    try (InputStream in = exchange.getRequestBody()) {
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (out.size() + n > maxBytes) {
          throw tooLarge(maxBytes);
        }
        out.write(buf, 0, n);
      }
    }
    return out.toByteArray();
  }

  private static ApiException tooLarge(int maxBytes) {
    return new ApiException(ApiError.PAYLOAD_TOO_LARGE, "request body larger than " + maxBytes + " bytes",
        Map.of("maxBytes", maxBytes));
  }

  static void sendJson(HttpExchange exchange, int status, Object body, ObjectMapper json) throws IOException {
    byte[] bytes;
    try {
      bytes = json.writeValueAsBytes(body);
    } catch (JsonProcessingException e) {
      throw new IOException("cannot serialize a reply", e);
    }
    send(exchange, status, JSON, bytes);
  }

  static void send(HttpExchange exchange, int status, String contentType, byte[] bytes) throws IOException {
    exchange.getResponseHeaders().set("Content-Type", contentType);
    exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
    if (bytes.length > 0) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The JSON error body: {@code {"error": code, "message": ..., ...details}}. */
  static Map<String, Object> errorBody(ApiException e) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", e.error().code());
    body.put("message", e.getMessage());
    body.putAll(e.details());
    return body;
  }

  /** A parameter as an int within [min, max], or {@code dflt} when absent; anything else is a 400. */
  static int intParam(Map<String, String> params, String name, int dflt, int min, int max) {
    String v = params.get(name);
    if (v == null) {
      return dflt;
    }
    long n = longParam(params, name, min, max);
    return (int) n;
  }

  /** A parameter as a long within [min, max]; absent or malformed is a 400. */
  static long longParam(Map<String, String> params, String name, long min, long max) {
    String v = params.get(name);
    if (v == null) {
      throw new ApiException(ApiError.BAD_REQUEST, "parameter '" + name + "' is required");
    }
    long n;
    try {
      n = Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw new ApiException(ApiError.BAD_REQUEST, "parameter '" + name + "' must be an integer, got '" + v + "'");
    }
    if (n < min || n > max) {
      throw new ApiException(ApiError.BAD_REQUEST,
          "parameter '" + name + "' must be between " + min + " and " + max + ", got " + n);
    }
    return n;
  }

  /** A boolean flag: absent is false; "", "true" are true; "false" is false; anything else a 400. */
  static boolean flag(Map<String, String> params, String name) {
    String v = params.get(name);
    if (v == null || v.equals("false")) {
      return false;
    }
    if (v.isEmpty() || v.equals("true")) {
      return true;
    }
    throw new ApiException(ApiError.BAD_REQUEST, "parameter '" + name + "' must be true or false, got '" + v + "'");
  }
}
