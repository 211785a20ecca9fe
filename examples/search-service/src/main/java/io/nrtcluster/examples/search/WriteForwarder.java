package io.nrtcluster.examples.search;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.nrtcluster.common.NodeLog;
import io.nrtcluster.node.ClusterNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends a write that reached a replica on to the current primary's HTTP API (found through the
 * {@link HttpAddressBook}) and relays its answer, following the cluster's view of the primary
 * ({@link PrimaryViews}) for at most {@code forwardTimeout} in all.
 *
 * <p>Under faults: when the view names another primary while an attempt waits for its answer (the
 * primary it went to was deposed: cut off, crashed with its session alive), the attempt is
 * abandoned at once and the write goes to the new primary, or is applied here when this node took
 * over; when the primary cannot be reached (connection refused or reset, no HTTP address
 * published) or answers that it is not the primary any more, the write waits for the view to change
 * (looking again now and then) and goes to whichever primary the view names then. So the client
 * waits for the failover, not for a timeout; only when no primary answers within {@code
 * forwardTimeout} is the answer a 503 {@code no_primary}.
 *
 * <p>A batch may so reach more than one primary, and one it was abandoned on may have taken it
 * before it was cut off. It is still applied once in effect: the documents replace by id (the only
 * write this API has), and what a deposed primary took but never replicated is dropped when it steps
 * down (it rolls back to its last commit), while what it did replicate is the same batch again; a
 * deposed primary cannot publish a write it takes after the new epoch began (the election's fence).
 * The reply names every abandoned attempt in {@value #ABANDONED} (target and why: {@link Abandon}
 * says which may have been applied there); writes of the
 * same id by different clients racing a failover have no defined order, as without one.
 *
 * <p>One hop only: a forwarded request carries {@value #FORWARDED_BY}, and a node that receives
 * one while not primary answers 503 instead of forwarding again, so writes never loop during a
 * failover; the forwarding node then follows the view as above.
 */
final class WriteForwarder implements AutoCloseable {
  static final String FORWARDED_BY = "X-Nrt-Forwarded-By";
  static final String FORWARDED_TO = "X-Nrt-Forwarded-To";
  /** Attempts given up on before the one that answered: {@code <url> <reason>}, comma-separated. */
  static final String ABANDONED = "X-Nrt-Forward-Abandoned";

  private static final long FIRST_LOOK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
  private static final long MAX_LOOK_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Why an attempt at a primary was given up on; each is retried against the view of then. */
  enum Abandon {
    /** The view named another primary (or this node) while the attempt waited: it may have been applied there. */
    VIEW_CHANGED(true),
    /** The connection failed after it was made: it may have been applied there if the request had gone out. */
    UNREACHABLE(true),
    /** No connection could be made: the request never went out. */
    REFUSED(false),
    /** The target answered that it is not the primary (any more): not applied there. */
    NOT_PRIMARY_THERE(false);

    private final boolean mayHaveApplied;

    Abandon(boolean mayHaveApplied) {
      this.mayHaveApplied = mayHaveApplied;
    }

    /** Whether the primary given up on may have taken the batch. */
    boolean mayHaveApplied() {
      return mayHaveApplied;
    }

    String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One abandoned attempt. */
  record Abandoned(URI target, Abandon why) {
    @Override
    public String toString() {
      return target + " " + why.code();
    }
  }

  private final HttpAddressBook addresses;
  private final PrimaryViews views;
  private final HttpClient client;
  private final ObjectMapper json;
  private final Duration timeout;
  private final int nodeId;
  private final String ownAddress;
  private final NodeLog log;

  /** @param ownAddress this node's replication address: the view naming it means this node takes over */
  WriteForwarder(HttpAddressBook addresses, PrimaryViews views, int nodeId, String ownAddress, Duration timeout,
      NodeLog log) {
    this.addresses = addresses;
    this.views = views;
    this.nodeId = nodeId;
    this.ownAddress = ownAddress;
    this.timeout = timeout;
    this.log = log;
    this.json = new ObjectMapper();
    this.client = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
  }

  /** The primary's reply, relayed as is. */
  record Relayed(int status, String contentType, byte[] body, URI primary) {}

  /** Starts following the view for one write to {@code index}; its deadline runs from now. */
  Forward begin(HostedIndex index) {
    return new Forward(index, System.nanoTime() + timeout.toNanos());
  }

  /**
   * One write that is not applied here: the attempts made so far and the deadline. The caller loops:
   * {@link #watch}, try the write here, and on {@code NotPrimaryException} {@link #attempt} it at the
   * primary the view names; an empty answer means look again (the view changed, or was waited on).
   */
  final class Forward {
    private final HostedIndex index;
    private final long deadline;
    /** Each (target, reason) once: a primary that stays unreachable is tried again and again. */
    private final Set<Abandoned> abandoned = new LinkedHashSet<>();
    private long nextLook = FIRST_LOOK_NANOS;
    private String lastPrimary;

    private Forward(HostedIndex index, long deadline) {
      this.index = index;
      this.deadline = deadline;
    }

    /** Completes when the view changes from now on: take it before reading the view. */
    CompletableFuture<Void> watch() {
      return views.nextChange(index.name());
    }

    /** The attempts given up on so far, oldest first. */
    List<Abandoned> abandoned() {
      return List.copyOf(abandoned);
    }

    /**
     * Forwards {@code body} to the primary at replication address {@code primaryAddress} (null when
     * the view names none) and returns its answer; empty when the write must be tried again against
     * the view of now, which may mean after a wait for {@code change} (never beyond the deadline).
     * Throws a 503 {@link ApiError#NO_PRIMARY} once the deadline has passed.
     */
    Optional<Relayed> attempt(String primaryAddress, String rawQuery, byte[] body, CompletableFuture<Void> change) {
      if (!Objects.equals(primaryAddress, lastPrimary)) {
        // A new primary is often still opening (it answers 503 for a moment): look again soon.
        lastPrimary = primaryAddress;
        nextLook = FIRST_LOOK_NANOS;
      }
      if (primaryAddress == null) {
        awaitView(change, "index " + index.name() + " has no primary right now");
        return Optional.empty();
      }
      if (primaryAddress.equals(ownAddress)) {
        // Promoting, or fenced until ZooKeeper confirms the epoch: applied here once it leads.
        awaitView(change, "node " + nodeId + " leads index " + index.name() + " but does not take writes yet");
        return Optional.empty();
      }
      Optional<URI> http = addresses.httpOf(primaryAddress);
      if (http.isEmpty()) {
        awaitView(change, "the primary of index " + index.name() + " (" + primaryAddress + ") has not published its HTTP address");
        return Optional.empty();
      }
      URI target = http.get().resolve("/indexes/" + index.name() + "/docs"
          + (rawQuery == null || rawQuery.isEmpty() ? "" : "?" + rawQuery));
      HttpRequest request = HttpRequest.newBuilder(target).timeout(Duration.ofNanos(Math.max(1, remaining())))
          .header("Content-Type", Exchanges.JSON)
          .header(FORWARDED_BY, Integer.toString(nodeId))
          .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
      CompletableFuture<HttpResponse<byte[]>> response = client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
      HttpResponse<byte[]> answer;
      try {
        answer = awaitAnswer(response, http.get(), primaryAddress, change);
      } catch (IOException e) {
        // Perhaps a restarted primary that listens elsewhere now: look its address up again next time.
        addresses.forget(primaryAddress);
        boolean neverSent = e instanceof ConnectException || e instanceof HttpConnectTimeoutException;
        giveUp(http.get(), neverSent ? Abandon.REFUSED : Abandon.UNREACHABLE, e.toString());
        awaitView(change, "the primary of index " + index.name() + " at " + http.get() + " did not answer (" + e + ")");
        return Optional.empty();
      }
      if (answer == null) {
        giveUp(http.get(), Abandon.VIEW_CHANGED, "the view names " + describeView());
        return Optional.empty();
      }
      if (failoverUnderWay(answer)) {
        giveUp(http.get(), Abandon.NOT_PRIMARY_THERE, "it answered " + answer.statusCode());
        awaitView(change, "the node at " + http.get() + " is not the primary of index " + index.name() + " any more");
        return Optional.empty();
      }
      return Optional.of(new Relayed(answer.statusCode(),
          answer.headers().firstValue("Content-Type").orElse(Exchanges.JSON), answer.body(), http.get()));
    }

    /**
     * The primary's answer; null when the view named another primary first (the attempt is then
     * cancelled). A view change that still names {@code primaryAddress} keeps waiting.
     */
    private HttpResponse<byte[]> awaitAnswer(CompletableFuture<HttpResponse<byte[]>> response, URI target,
        String primaryAddress, CompletableFuture<Void> change) throws IOException {
      CompletableFuture<Void> watched = change;
      try {
        while (true) {
          try {
            CompletableFuture.anyOf(response, watched).get(Math.max(1, remaining()), TimeUnit.NANOSECONDS);
          } catch (ExecutionException e) {
            // The response failed: read below.
          }
          if (response.isDone()) {
            return response.get();
          }
          // Re-armed before the view is read, so that a change right after the read is not missed.
          CompletableFuture<Void> next = watch();
          ClusterNode node = index.node();
          if (node.isWritablePrimary() || !Objects.equals(primaryAddress, node.primaryAddress())) {
            response.cancel(true);
            return null;
          }
          watched = next;
        }
      } catch (TimeoutException e) {
        response.cancel(true);
        abandoned.add(new Abandoned(target, Abandon.UNREACHABLE));
        throw timedOut(null);
      } catch (ExecutionException e) {
        if (e.getCause() instanceof IOException io) {
          if (remaining() <= 0) {
            abandoned.add(new Abandoned(target, Abandon.UNREACHABLE));
            throw timedOut(io);
          }
          throw io;
        }
        throw new ApiException(ApiError.INTERNAL, "forwarding to the primary failed: " + e.getCause(), details(), e.getCause());
      } catch (CancellationException e) {
        throw new ApiException(ApiError.UNAVAILABLE, "forwarding to the primary was cancelled (closing?)", details(), e);
      } catch (InterruptedException e) {
        response.cancel(true);
        Thread.currentThread().interrupt();
        throw new ApiException(ApiError.UNAVAILABLE, "interrupted while forwarding to the primary", details(), e);
      }
    }

    /** A 503 that says the target is not the primary, or soon will not be: the view is about to change. */
    private boolean failoverUnderWay(HttpResponse<byte[]> answer) {
      if (answer.statusCode() != ApiError.NO_PRIMARY.status()) {
        return false;
      }
      try {
        JsonNode error = json.readTree(answer.body()).get("error");
        String code = error == null ? null : error.asText();
        return ApiError.NO_PRIMARY.code().equals(code) || ApiError.WRITER_LOST.code().equals(code);
      } catch (IOException e) {
        return false;
      }
    }

    private void giveUp(URI target, Abandon why, String detail) {
      abandoned.add(new Abandoned(target, why));
      log.info("forward of a write to index {} at {} abandoned ({}: {}); following the view", index.name(), target,
          why.code(), detail);
    }

    /**
     * Waits for the view to change, or a while (growing up to a second: the view may not change for
     * a primary that comes back), never past the deadline; throws the 503 when that passed.
     */
    private void awaitView(CompletableFuture<Void> change, String why) {
      long left = remaining();
      if (left <= 0) {
        throw new ApiException(ApiError.NO_PRIMARY, why + "; no primary answered within " + timeout + ": retry"
            + abandonedNote(), details());
      }
      long look = Math.min(left, nextLook);
      nextLook = Math.min(MAX_LOOK_NANOS, nextLook * 2);
      try {
        change.get(look, TimeUnit.NANOSECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // Look again.
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ApiException(ApiError.UNAVAILABLE, "interrupted while waiting for a primary", details(), e);
      }
    }

    private ApiException timedOut(Throwable cause) {
      return new ApiException(ApiError.NO_PRIMARY, "no primary of index " + index.name() + " answered within " + timeout
          + ": retry" + abandonedNote(), details(), cause);
    }

    private String abandonedNote() {
      List<URI> maybe = abandoned.stream().filter(a -> a.why().mayHaveApplied()).map(Abandoned::target)
          .distinct().toList();
      return maybe.isEmpty() ? "; the batch was not applied anywhere" : "; the batch may or may not have been applied by "
          + maybe + ", and retrying it is safe (documents are replaced by id)";
    }

    private String describeView() {
      ClusterNode node = index.node();
      return node.isWritablePrimary() ? "this node" : String.valueOf(node.primaryAddress());
    }

    private long remaining() {
      return deadline - System.nanoTime();
    }

    private Map<String, Object> details() {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("primary", index.node().primaryAddress());
      if (!abandoned.isEmpty()) {
        d.put("abandoned", abandoned.stream().map(Abandoned::toString).toList());
      }
      return d;
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
