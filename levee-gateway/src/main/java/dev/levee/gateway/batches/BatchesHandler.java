package dev.levee.gateway.batches;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.BodyMemory;
import dev.levee.anthropic.server.BodyReader;
import dev.levee.anthropic.server.PageQuery;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.server.ServerLimits;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.HeaderValues;
import dev.levee.gateway.idempotency.IdempotentExchange;
import dev.levee.gateway.jobs.Job;
import dev.levee.gateway.jobs.JobRequest;
import dev.levee.gateway.jobs.JobStore;
import dev.levee.gateway.jobs.KeySeal;
import dev.levee.gateway.jobs.NewJob;
import dev.levee.gateway.pipeline.ClientNames;
import dev.levee.gateway.pipeline.JsonContentType;
import dev.levee.gateway.pipeline.LeveeErrors;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The Message Batches API, shaped as Anthropic's ({@code /v1/messages/batches}): create, retrieve,
 * list (newest first, paged by {@code after_id} or {@code before_id} and {@code limit} 1–1000,
 * default 20, as {@link PageQuery} checks them; other query parameters, such as the SDKs' {@code
 * beta=true}, are ignored), cancel, delete (ended batches only) and results (JSONL, once ended). Each request
 * of a batch is a job run through the gateway's resilience path by the worker pool. Every batch
 * belongs to the tenant that created it; another tenant's id answers 404. Creation refuses what
 * {@code /v1/messages} refuses at the door — a body not sent as JSON ({@link JsonContentType}), a
 * {@code model} no alias names that is not a plain name ({@link ClientNames}) — besides what {@link
 * BatchParser} checks, and stores nothing then. A batch sent without an API key ({@code x-api-key}
 * or a bearer token; an empty one counts as none) for a model whose every target forwards the
 * client's key is refused 401 {@code authentication_error} as {@code /v1/messages} is refused by
 * the upstream, instead of being stored to fail request by request. A batch whose requests would
 * have to keep the client's key while {@code queue.secret} is unset is refused 403 {@code
 * permission_error} ({@link #notOffered}). Every answer is Levee's own: none is a 5xx but a job
 * store failure (500 {@code api_error}).
 */
public final class BatchesHandler {

  /** The largest batch body taken, bytes: 256 MB, the Message Batches API's limit (a larger one is 413). */
  public static final long MAX_BYTES = BatchParser.MAX_BYTES;

  private static final String PREFIX = "/v1/messages/batches";
  private static final int RESULTS_PAGE = 1_000;

  /** The API's answer to a request without a key, in its words (what {@code /v1/messages} relays from the upstream). */
  private static final ApiError NO_KEY = new ApiError(401, "authentication_error", "x-api-key header is required")
      .because(RefusalReason.MISSING_API_KEY);

  private final BatchStore batches;
  private final JobStore jobs;
  private final KeySeal seal;
  private final Predicate<String> forwardsClientKey;
  private final Predicate<String> needsClientKey;
  private final Predicate<String> configuredAlias;
  private final Predicate<String> knownFeature;
  private final InstantSource wall;
  private final Duration ttl;
  private final Runnable wake;
  private final IdempotentExchange idempotency;
  private final ServerLimits limits;

  /**
   * @param forwardsClientKey whether calls for an alias carry the client's own key (some target's
   *     upstream has none): then the key is sealed with each job
   * @param needsClientKey whether every target of a model forwards the client's key (no upstream of
   *     its chain has an {@code api-key}): a batch for it without a key is refused 401
   * @param configuredAlias whether a {@code model} is a configured alias (any other name is checked as
   *     ingress checks it, {@link ClientNames#model})
   * @param knownFeature whether {@code x-levee-feature} names a configured feature
   * @param ttl how long a batch may run before its unfinished requests expire
   * @param wake tells the worker pool new work is there
   * @param limits the server's: a body over {@code server.max-body} (which the door leaves to this
   *     handler) is read here under the same minimum body rate; a chunked one the door read up to
   *     {@code max-body + 1} bytes, so one longer is refused
   */
  public BatchesHandler(BatchStore batches, JobStore jobs, KeySeal seal, Predicate<String> forwardsClientKey,
      Predicate<String> needsClientKey, Predicate<String> configuredAlias, Predicate<String> knownFeature,
      InstantSource wall, Duration ttl, Runnable wake, IdempotentExchange idempotency, ServerLimits limits) {
    this.limits = limits;
    this.batches = batches;
    this.jobs = jobs;
    this.seal = seal;
    this.forwardsClientKey = forwardsClientKey;
    this.needsClientKey = needsClientKey;
    this.configuredAlias = configuredAlias;
    this.knownFeature = knownFeature;
    this.wall = wall;
    this.ttl = ttl;
    this.wake = wake;
    this.idempotency = idempotency;
  }

  /** Whether {@code path} is this handler's. */
  public static boolean serves(String path) {
    return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
  }

  /**
   * The refusal of a request to this handler that its head alone decides — a batch to create whose
   * {@code content-type} is not JSON — or empty: asked before the server reads the body, so such a
   * request is answered without {@code 100 Continue} ({@code RequestGuard.HeadAnswers}).
   */
  public static Optional<ApiError> refusalOnHead(Request request) {
    return request.getMethod().equals("POST") && Request.getPathInContext(request).equals(PREFIX)
        ? JsonContentType.check(request.getHeaders()) : Optional.empty();
  }

  public void handle(Request request, Response response, Callback callback) {
    String path = Request.getPathInContext(request);
    String method = request.getMethod();
    String tenant = CacheKey.tenantOf(ServerIo.headers(request));
    List<String> parts = path.equals(PREFIX) ? List.of() : List.of(path.substring(PREFIX.length() + 1).split("/", -1));
    try {
      if (parts.isEmpty()) {
        switch (method) {
          case "POST" -> idempotency.handle(request, response, callback, (rq, rs, cb) -> create(rq, rs, cb, tenant),
              (rq, rs, status, outcome, refusal) -> { }); // the dispatcher writes its access record
          case "GET" -> list(request, response, callback, tenant);
          default -> notAllowed(response, callback, method, path, "GET, POST");
        }
        return;
      }
      String id = parts.getFirst();
      if (parts.size() == 1) {
        switch (method) {
          case "GET" -> found(batches.get(tenant, id), id, request, response, callback);
          case "DELETE" -> delete(tenant, id, response, callback);
          default -> notAllowed(response, callback, method, path, "GET, DELETE");
        }
      } else if (parts.size() == 2 && parts.get(1).equals("cancel")) {
        if (!method.equals("POST")) {
          notAllowed(response, callback, method, path, "POST");
          return;
        }
        found(batches.cancel(tenant, id, wall.instant()), id, request, response, callback);
      } else if (parts.size() == 2 && parts.get(1).equals("results")) {
        if (!method.equals("GET")) {
          notAllowed(response, callback, method, path, "GET");
          return;
        }
        results(tenant, id, response, callback);
      } else {
        LeveeErrors.send(response, callback, LeveeErrors.unknownPath(method, path));
      }
    } catch (JobStore.StoreException e) {
      LeveeErrors.send(response, callback, ApiError.api("the job store failed; nothing was changed. " + e.getMessage()));
    }
  }

  private void create(Request request, Response response, Callback callback, String tenant) {
    Optional<ApiError> notJson = JsonContentType.check(request.getHeaders());
    if (notJson.isPresent()) { // as /v1/messages: the API takes JSON bodies only
      LeveeErrors.send(response, callback, notJson.get());
      return;
    }
    Map<String, List<String>> headers = ServerIo.headers(request);
    if (request.getLength() > MAX_BYTES) { // declared too large: refused unread
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      LeveeErrors.send(response, callback, ApiError.requestTooLarge("a batch may be at most 256 MB")
          .because(RefusalReason.BODY_TOO_LARGE));
      return;
    }
    Optional<ApiError> tooLarge = BodyMemory.neverFits(request, BatchParser.MEMORY_PER_BYTE * request.getLength());
    if (tooLarge.isPresent()) { // refused unread: it could never be parsed here (a body is held as it arrives)
      response.getHeaders().put(HttpHeader.CONNECTION, "close");
      LeveeErrors.send(response, callback, tooLarge.get());
      return;
    }
    // the door's rule for bodies over server.max-body too: a slow upload cannot hold the connection
    byte[] body = BodyReader.readOrAnswer(request, response, callback, limits, MAX_BYTES,
        error -> LeveeErrors.send(response, callback, error));
    if (body == null) {
      return;
    }
    if (request.getLength() < 0 && body.length > limits.maxBody()) {
      // the door reads a chunked body up to max-body + 1 bytes: these are its start, not all of it
      LeveeErrors.send(response, callback, ApiError.requestTooLarge("a batch sent with transfer-encoding: chunked may be "
          + "at most server.max-body (" + limits.maxBody() + " bytes); send a larger one with content-length (up to 256 MB)")
          .because(RefusalReason.BODY_TOO_LARGE));
      return;
    }
    List<BatchParser.Entry> entries;
    try {
      BatchParser.Checked checked = BatchParser.check(body); // one streaming read: little heap
      if (!heldForParse(request, response, callback, checked.memory())) {
        return;
      }
      entries = BatchParser.entries(body, checked);
    } catch (BatchParser.Refused refused) {
      LeveeErrors.send(response, callback, refused.error);
      return;
    }
    for (int i = 0; i < entries.size(); i++) {
      String model = entries.get(i).model();
      Optional<ApiError> badName = configuredAlias.test(model) ? Optional.empty() : ClientNames.model(model);
      if (badName.isPresent()) { // as ingress refuses it, at the request's place
        LeveeErrors.send(response, callback, ApiError.invalidRequest("requests." + i + ".params." + badName.get().message())
            .because(badName.get().reason()));
        return;
      }
    }
    String clientKey = JobRequest.clientKey(headers); // an empty x-api-key or bearer token is none
    if (clientKey == null && entries.stream().anyMatch(e -> needsClientKey.test(e.model()))) {
      // /v1/messages hears this 401 from the upstream at once; stored, each request would hear it later
      LeveeErrors.send(response, callback, NO_KEY);
      return;
    }
    String feature = HeaderValues.first(headers, "x-levee-feature");
    feature = feature != null && knownFeature.test(feature) ? feature : "default";
    int priority;
    try {
      priority = priority(HeaderValues.first(headers, "x-levee-priority"));
    } catch (IllegalArgumentException e) {
      LeveeErrors.send(response, callback, ApiError.invalidRequest(e.getMessage()).because(RefusalReason.BAD_PRIORITY));
      return;
    }
    List<NewJob> newJobs = new ArrayList<>(entries.size());
    for (BatchParser.Entry entry : entries) {
      byte[] sealed = null;
      if (forwardsClientKey.test(entry.model()) && clientKey != null) {
        if (!seal.enabled()) {
          response.getHeaders().put("x-should-retry", "false"); // a configuration matter: retrying cannot help
          LeveeErrors.send(response, callback, notOffered(entry.model()));
          return;
        }
        sealed = seal.seal(clientKey);
      }
      newJobs.add(new NewJob(tenant, feature, entry.model(), priority, entry.customId(),
          JobRequest.replayable("/v1/messages", null, headers, entry.params()), sealed));
    }
    Instant now = wall.instant();
    String id = batches.create(tenant, newJobs, now, now.plus(ttl));
    wake.run();
    found(batches.get(tenant, id), id, request, response, callback);
  }

  /**
   * Holds the {@code bytes} a batch's requests take while they are read ({@link
   * BatchParser.Checked#memory()}), or answers why not: 413 when it exceeds a tenant's half of
   * {@code server.max-body-memory}, 429 or 529 with {@code retry-after} when other bodies hold it now.
   */
  private static boolean heldForParse(Request request, Response response, Callback callback, long bytes) {
    Optional<ApiError> noRoom = BodyMemory.hold(request, bytes);
    if (noRoom.isEmpty()) {
      return true;
    }
    ServerIo.retryAfterIfLoad(response, noRoom.get());
    LeveeErrors.send(response, callback, noRoom.get());
    return false;
  }

  private static int priority(String header) {
    if (header == null) {
      return 5;
    }
    try {
      int p = Integer.parseInt(header.strip());
      if (p >= 0 && p <= 9) {
        return p;
      }
    } catch (NumberFormatException ignored) {
      // refused below
    }
    throw new IllegalArgumentException("x-levee-priority must be an integer from 0 to 9, was '" + ClientText.shown(header) + "'");
  }

  private void list(Request request, Response response, Callback callback, String tenant) {
    Fields query = Request.extractQueryParameters(request);
    PageQuery paging;
    switch (PageQuery.parse(query::getValues)) { // any other parameter (the SDKs' beta=true) is ignored
      case PageQuery.Invalid invalid -> {
        LeveeErrors.send(response, callback, invalid.error());
        return;
      }
      case PageQuery.Valid valid -> paging = valid.query();
    }
    int limit = paging.limit();
    List<Batch> page = batches.list(tenant, limit, paging.afterId(), paging.beforeId());
    boolean more = page.size() > limit;
    List<Batch> shown = more ? page.subList(0, limit) : page;
    ObjectNode out = Json.MAPPER.createObjectNode();
    ArrayNode data = out.putArray("data");
    shown.forEach(b -> data.add(BatchJson.batch(b, resultsUrl(request, b.id()))));
    out.put("has_more", more);
    if (shown.isEmpty()) {
      out.putNull("first_id");
      out.putNull("last_id");
    } else {
      out.put("first_id", shown.getFirst().id());
      out.put("last_id", shown.getLast().id());
    }
    ServerIo.json(response, callback, 200, Json.bytes(out));
  }

  private void delete(String tenant, String id, Response response, Callback callback) {
    if (ended(tenant, id, "cannot be deleted while it is processing; cancel it first", response, callback).isEmpty()) {
      return;
    }
    if (!batches.delete(tenant, id)) {
      LeveeErrors.send(response, callback, notFound(id));
      return;
    }
    ObjectNode out = Json.MAPPER.createObjectNode();
    out.put("id", id);
    out.put("type", "message_batch_deleted");
    ServerIo.json(response, callback, 200, Json.bytes(out));
  }

  /**
   * The tenant's batch {@code id} once it has ended; otherwise answers 404, or 400 saying {@code
   * whileProcessing}, and returns empty.
   */
  private Optional<Batch> ended(String tenant, String id, String whileProcessing, Response response,
      Callback callback) {
    Optional<Batch> batch = batches.get(tenant, id);
    if (batch.isEmpty()) {
      LeveeErrors.send(response, callback, notFound(id));
      return Optional.empty();
    }
    if (batch.get().endedAt() == null) {
      LeveeErrors.send(response, callback, ApiError.invalidRequest("Batch " + id + " " + whileProcessing)
          .because(RefusalReason.BATCH_IN_PROGRESS));
      return Optional.empty();
    }
    return batch;
  }

  private void results(String tenant, String id, Response response, Callback callback) {
    Optional<Batch> batch = ended(tenant, id,
        "is still processing; its results are available once processing_status is ended", response, callback);
    if (batch.isEmpty()) {
      return;
    }
    response.setStatus(200);
    response.getHeaders().put("content-type", "application/binary");
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      int position = 0;
      List<Job> page;
      do {
        page = jobs.batchJobs(id, position, RESULTS_PAGE);
        for (Job job : page) {
          out.write(Json.bytes(BatchJson.resultLine(job)));
          out.write('\n');
        }
        position += RESULTS_PAGE;
      } while (page.size() == RESULTS_PAGE);
    } catch (IOException e) {
      callback.failed(e);
      return;
    }
    callback.succeeded();
  }

  private void found(Optional<Batch> batch, String id, Request request, Response response, Callback callback) {
    if (batch.isEmpty()) {
      LeveeErrors.send(response, callback, notFound(id));
      return;
    }
    ServerIo.json(response, callback, 200, Json.bytes(BatchJson.batch(batch.get(), resultsUrl(request, id))));
  }

  private static String resultsUrl(Request request, String id) {
    return HttpURI.build(request.getHttpURI()).path(PREFIX + "/" + id + "/results").query(null).asString();
  }

  /**
   * The refusal of a batch for {@code model} when its requests would have to keep the client's key
   * (some target's upstream has no {@code api-key}) and {@code queue.secret} is unset: 403 {@code
   * permission_error}, sent with {@code x-should-retry: false}, saying that this gateway does not
   * offer Message Batches for the model until its operator sets the secret, and that nothing was
   * stored. A 4xx, because nothing failed: the gateway refuses by its configuration, so the answer
   * must not count among the 5xx and errors operators alert on, nor be retried — the SDKs retry
   * 408, 409, 429 and 5xx only (the Anthropic API's "Errors" page, and {@code x-should-retry}).
   * 403 rather than 404, because the endpoint exists: it takes batches for models whose upstream
   * holds its own key, and lists, retrieves, cancels and deletes batches, so a 404 would send the
   * client looking for a wrong base URL; 403 is the API's word for "this key may not use this
   * resource here", which is what the client meets. Like any 4xx it is kept under an {@code
   * idempotency-key}: once the secret is set, the batch goes again under a new key.
   */
  static ApiError notOffered(String model) {
    return new ApiError(403, "permission_error", "This gateway does not offer Message Batches for model '"
        + ClientText.shown(model) + "' until queue.secret is configured: the model's upstream has no api-key, so each "
        + "request of a batch would have to keep your API key, and the gateway keeps client keys only sealed under "
        + "queue.secret. The gateway's operator must " + KeySeal.HOW_TO_ENABLE + ". Nothing was stored.")
        .because(RefusalReason.QUEUE_SECRET_UNSET);
  }

  private static ApiError notFound(String id) {
    return ApiError.notFound("No message batch with id '" + ClientText.shown(id) + "'").because(RefusalReason.NOT_FOUND);
  }

  private static void notAllowed(Response response, Callback callback, String method, String path, String allowed) {
    response.getHeaders().put("allow", allowed);
    LeveeErrors.send(response, callback, new ApiError(405, "invalid_request_error",
        ClientText.shown(method) + " is not allowed on " + ClientText.shown(path)).because(RefusalReason.METHOD_NOT_ALLOWED));
  }
}
