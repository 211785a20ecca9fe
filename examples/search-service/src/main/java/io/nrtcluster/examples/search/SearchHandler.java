package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import java.io.IOException;
import java.util.Map;

/**
 * {@code GET /indexes/{name}/search?q=..&size=..[&version=V][&after=CURSOR][&min_version=V]}: one
 * page of hits. The reply's {@code version} and {@code cursor} ask for the next page, on any node
 * that still holds that version: {@code ...&version=V&after=CURSOR} (the cursor alone suffices).
 */
final class SearchHandler implements Router.IndexRoute {
  static final int DEFAULT_SIZE = 10;

  private final ObjectMapper json;
  private final SearchService search;
  private final int nodeId;
  private final int maxPageSize;

  SearchHandler(ObjectMapper json, SearchService search, int nodeId, int maxPageSize) {
    this.json = json;
    this.search = search;
    this.nodeId = nodeId;
    this.maxPageSize = maxPageSize;
  }

  @Override
  public void handle(HttpExchange exchange, HostedIndex index) throws IOException {
    Map<String, String> p = Exchanges.query(exchange);
    int size = Exchanges.intParam(p, "size", Math.min(DEFAULT_SIZE, maxPageSize), 1, maxPageSize);
    long version = p.containsKey("version") ? Exchanges.longParam(p, "version", 0, Long.MAX_VALUE) : -1;
    long minVersion = p.containsKey("min_version") ? Exchanges.longParam(p, "min_version", 0, Long.MAX_VALUE) : -1;
    String after = p.get("after");
    Cursor cursor = after == null || after.isEmpty() ? null : Cursor.decode(after);
    Map<String, Object> reply = search.search(index, nodeId, new SearchService.Request(p.get("q"), size, version, cursor, minVersion));
    Exchanges.sendJson(exchange, 200, reply, json);
  }
}
