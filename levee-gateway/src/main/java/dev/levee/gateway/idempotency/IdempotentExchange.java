package dev.levee.gateway.idempotency;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.BodyReader;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.server.ServerLimits;
import dev.levee.anthropic.server.TenantKey;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.jobs.JobResult;
import dev.levee.gateway.pipeline.LeveeErrors;
import dev.levee.gateway.pipeline.LeveeHeaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The {@code idempotency-key} request header around one HTTP exchange ({@code POST /v1/messages},
 * batch creation): without the header the exchange runs as usual; with it, {@link
 * IdempotencyKeys} decides whether it runs (its answer — JSON or a whole stream — is recorded
 * as it is written), is answered again from the first one ({@code idempotent-replayed: true}),
 * or is refused: 422 for the key with another body, 409 when the first is still in flight past
 * this request's deadline, 400 for a malformed key. The body fingerprint is SHA-256 over method,
 * path, query and body bytes.
 *
 * <p>One call wraps the handler ({@link #handle}), so the hook can move into the pipeline's
 * admission and recorder stages unchanged.
 */
public final class IdempotentExchange {

  /** A handler of one exchange, blocking until its response is complete. */
  @FunctionalInterface
  public interface Exchange {
    void handle(Request request, Response response, Callback callback);
  }

  private static final Set<String> NOT_KEPT = Set.of("content-length", "date", "server", "transfer-encoding",
      "connection", "x-levee-request-id");

  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(IdempotentExchange.class);

  private final IdempotencyKeys keys;
  private final InstantSource wall;
  private final Duration deadline;
  private final ServerLimits limits;
  private final long maxBody;

  /**
   * Fingerprints bodies up to the server's {@code max-body}: a larger declared one runs without the
   * key (the door left it unread, and the handler refuses it).
   *
   * @param deadline how long a request waits for the first one with its key
   * @param limits the server's: its {@code max-body}, and the minimum body rate a body the door left
   *     unread is read at
   */
  public IdempotentExchange(IdempotencyKeys keys, InstantSource wall, Duration deadline, ServerLimits limits) {
    this(keys, wall, deadline, limits, limits.maxBody());
  }

  private IdempotentExchange(IdempotencyKeys keys, InstantSource wall, Duration deadline, ServerLimits limits,
      long maxBody) {
    this.keys = keys;
    this.wall = wall;
    this.deadline = deadline;
    this.limits = limits;
    this.maxBody = maxBody;
  }

  /**
   * This exchange for a handler that takes bodies larger than the server's {@code max-body} (batch
   * creation, up to 256 MB): it reads and fingerprints them up to {@code maxBody} bytes, under the
   * server's minimum body rate, so their key holds too.
   */
  public IdempotentExchange forBodiesUpTo(long maxBody) {
    return new IdempotentExchange(keys, wall, deadline, limits, maxBody);
  }

  /** Told of every exchange the key answered without running it, for the access log and metrics. */
  @FunctionalInterface
  public interface Answered {
    /**
     * @param status the status the client got
     * @param outcome {@code replayed} (the first answer again) or {@code refused <error type>}
     * @param refusal why it was refused ({@link ApiError#reason}); null for a replay
     */
    void answered(Request request, Response response, int status, String outcome, RefusalReason refusal);
  }

  /**
   * Runs {@code next} for this exchange under its idempotency key, if it has one; tells {@code
   * answered} of an exchange the key answered itself (a replay or a refusal).
   */
  public void handle(Request request, Response response, Callback callback, Exchange next, Answered answered) {
    String key = request.getHeaders().get("idempotency-key");
    if (key == null) { // the common case costs one header look-up
      next.handle(request, response, callback);
      return;
    }
    if (key.isBlank() || key.length() > 255) {
      refuse(request, response, callback, answered, ApiError.invalidRequest("idempotency-key must be 1 to 255 characters")
          .because(RefusalReason.BAD_IDEMPOTENCY_KEY));
      return;
    }
    if (request.getLength() > maxBody) { // unread, by the door and here: the handler refuses it at once
      next.handle(request, response, callback);
      return;
    }
    // at once when the door buffered it; else (a batch over max-body) under the door's rate rule
    byte[] body = BodyReader.readOrAnswer(request, response, callback, limits, maxBody,
        error -> refuse(request, response, callback, answered, error));
    if (body == null) {
      return;
    }
    Request replay = new BodyReplay(request, body);
    // a chunked body the door cut at max-body + 1 is not the whole body: its fingerprint would be of a
    // prefix, and the handler refuses it (a batch sent chunked past max-body) — so no key is taken
    if (body.length > maxBody || request.getLength() < 0 && body.length > limits.maxBody()) {
      next.handle(replay, response, callback);
      return;
    }
    String tenant = CacheKey.tenantOf(ServerIo.headers(request));
    IdempotencyKeys.Claim claim;
    try {
      claim = keys.begin(tenant, key, fingerprint(request, body), wall.instant().plus(deadline));
    } catch (InterruptedException e) {
      callback.failed(e); // the client went away while waiting
      return;
    }
    switch (claim) {
      case IdempotencyKeys.Mismatch m -> refuse(request, response, callback, answered, new ApiError(422,
          "invalid_request_error",
          "idempotency-key was already used with a different request body; use a new key for a new request")
          .because(RefusalReason.IDEMPOTENCY_KEY_REUSED));
      case IdempotencyKeys.StillInFlight s -> {
        response.getHeaders().put("retry-after", "1");
        refuse(request, response, callback, answered, new ApiError(409, "invalid_request_error",
            "a request with this idempotency-key is still in progress; retry shortly")
            .because(RefusalReason.IDEMPOTENCY_KEY_IN_FLIGHT));
      }
      case IdempotencyKeys.Replay r -> {
        replay(r.result(), response, callback);
        answered.answered(request, response, r.result().status(), "replayed", null);
      }
      case IdempotencyKeys.Owner owner -> run(owner, replay, response, callback, next);
    }
  }

  private static void refuse(Request request, Response response, Callback callback, Answered answered, ApiError error) {
    LeveeErrors.send(response, callback, error);
    answered.answered(request, response, error.status(), "refused " + error.type(), error.reason());
  }

  private void run(IdempotencyKeys.Owner owner, Request request, Response response, Callback callback, Exchange next) {
    Recording recording = new Recording(request, response);
    // settled when the exchange completes, which for a stream is after next.handle has returned
    // (MessagesHandler relays it on a thread of its own)
    AtomicBoolean settled = new AtomicBoolean();
    Callback watched = Callback.from(() -> {
      settle(owner, recording, settled, true);
      callback.succeeded();
    }, failure -> {
      settle(owner, recording, settled, false);
      callback.failed(failure);
    });
    try {
      next.handle(request, recording, watched);
    } catch (RuntimeException | Error e) {
      settle(owner, recording, settled, false);
      throw e;
    }
  }

  /** Records the answer under the key, or releases the key when the exchange failed; once. */
  private void settle(IdempotencyKeys.Owner owner, Recording recording, AtomicBoolean settled, boolean succeeded) {
    if (!settled.compareAndSet(false, true)) {
      return;
    }
    try {
      if (succeeded) {
        keys.finish(owner, recording.result());
      } else {
        keys.release(owner);
      }
    } catch (RuntimeException e) { // the key frees itself when its lease runs out
      LOG.warn("could not record the answer of an idempotency key: {}", e.getMessage());
    }
  }

  private static void replay(JobResult result, Response response, Callback callback) {
    result.headers().forEach((name, values) -> values.forEach(v -> response.getHeaders().add(name, v)));
    response.getHeaders().remove(LeveeHeaders.ATTEMPTS); // the upstream calls of this request: none (docs/gateway.md)
    response.getHeaders().put("idempotent-replayed", "true");
    response.setStatus(result.status());
    response.getHeaders().put("content-length", result.body().length);
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      out.write(result.body());
    } catch (IOException e) {
      callback.failed(e);
      return;
    }
    callback.succeeded();
  }

  static String fingerprint(Request request, byte[] body) {
    MessageDigest sha = TenantKey.sha256();
    sha.update((request.getMethod() + " " + request.getHttpURI().getPath() + "?"
        + (request.getHttpURI().getQuery() == null ? "" : request.getHttpURI().getQuery()) + "\n")
        .getBytes(StandardCharsets.UTF_8));
    return HexFormat.of().formatHex(sha.digest(body));
  }

  /** The request with its body, already read, offered again. */
  private static final class BodyReplay extends Request.Wrapper {
    private Content.Chunk next;

    BodyReplay(Request request, byte[] body) {
      super(request);
      this.next = Content.Chunk.from(ByteBuffer.wrap(body), true);
    }

    @Override
    public synchronized Content.Chunk read() {
      Content.Chunk chunk = next;
      next = Content.Chunk.EOF;
      return chunk;
    }

    @Override
    public void demand(Runnable demandCallback) {
      demandCallback.run();
    }
  }

  /** The response, written through to the client and recorded on the way. */
  private static final class Recording extends Response.Wrapper {
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    Recording(Request request, Response response) {
      super(request, response);
    }

    @Override
    public void write(boolean last, ByteBuffer content, Callback callback) {
      if (content != null && content.hasRemaining()) {
        ByteBuffer copy = content.slice();
        byte[] bytes = new byte[copy.remaining()];
        copy.get(bytes);
        synchronized (body) {
          body.writeBytes(bytes);
        }
      }
      super.write(last, content, callback);
    }

    JobResult result() {
      Map<String, List<String>> headers = new LinkedHashMap<>();
      for (HttpField field : getHeaders()) {
        String name = field.getName().toLowerCase(Locale.ROOT);
        if (!NOT_KEPT.contains(name)) {
          headers.computeIfAbsent(name, k -> new ArrayList<>()).add(field.getValue());
        }
      }
      synchronized (body) {
        return new JobResult(getStatus(), headers, body.toByteArray());
      }
    }
  }
}
