package io.nrtcluster.examples.search;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sends a write that reached a replica on to the current primary's HTTP API (found through the
 * {@link HttpAddressBook}) and relays its answer. One hop only: a forwarded request carries {@value
 * #FORWARDED_BY}, and a node that receives one while not primary (the primary changed meanwhile)
 * answers 503 instead of forwarding again, so writes never loop during a failover; the client
 * retries, and since documents are replaced by id a retried batch is applied once.
 */
final class WriteForwarder implements AutoCloseable {
  static final String FORWARDED_BY = "X-Nrt-Forwarded-By";
  static final String FORWARDED_TO = "X-Nrt-Forwarded-To";

  private final HttpAddressBook addresses;
  private final HttpClient client;
  private final Duration timeout;
  private final int nodeId;

  WriteForwarder(HttpAddressBook addresses, int nodeId, Duration timeout) {
    this.addresses = addresses;
    this.nodeId = nodeId;
    this.timeout = timeout;
    this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  /** The primary's reply, relayed as is. */
  record Relayed(int status, String contentType, byte[] body, URI primary) {}

  /**
   * Forwards {@code body} to the primary at replication address {@code primaryAddress} (null when
   * none is known: a 503).
   */
  Relayed forward(String index, String primaryAddress, String rawQuery, byte[] body) {
    if (primaryAddress == null) {
      throw new ApiException(ApiError.NO_PRIMARY, "index " + index + " has no primary right now (failover under way?): retry");
    }
    URI http = addresses.httpOf(primaryAddress).orElseThrow(() -> new ApiException(ApiError.NO_PRIMARY,
        "the primary of index " + index + " (" + primaryAddress + ") has not published its HTTP address: retry",
        details(primaryAddress, null)));
    URI target = http.resolve("/indexes/" + index + "/docs" + (rawQuery == null || rawQuery.isEmpty() ? "" : "?" + rawQuery));
    HttpRequest request = HttpRequest.newBuilder(target).timeout(timeout)
        .header("Content-Type", Exchanges.JSON)
        .header(FORWARDED_BY, Integer.toString(nodeId))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    try {
      HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
      return new Relayed(response.statusCode(), response.headers().firstValue("Content-Type").orElse(Exchanges.JSON),
          response.body(), http);
    } catch (IOException e) {
      // Perhaps a restarted primary that listens elsewhere now: look its address up again next time.
      addresses.forget(primaryAddress);
      throw new ApiException(ApiError.NO_PRIMARY, "the primary of index " + index + " at " + http
          + " did not answer (" + e.getClass().getSimpleName() + "): retry; the batch may or may not have been applied,"
          + " and retrying it is safe (documents are replaced by id)", details(primaryAddress, http), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiException(ApiError.UNAVAILABLE, "interrupted while forwarding to the primary", Map.of(), e);
    }
  }

  private static Map<String, Object> details(String primaryAddress, URI http) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("primary", primaryAddress);
    if (http != null) {
      d.put("primaryHttp", http.toString());
    }
    return d;
  }

  @Override
  public void close() {
    client.close();
  }
}
