package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.ServerIo;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Levee's own errors on the endpoints outside the Messages pipeline (jobs, batches, admin,
 * idempotency keys, the dispatcher's 404, 405 and 500), in the shape the Messages path gives its
 * own ({@link Responder#refuse}): {@code {"type":"error","error":{"type","message"},"request_id"}}
 * with the same id in {@code x-levee-request-id} and {@code request-id} (where the SDKs look).
 * Stateless.
 */
public final class LeveeErrors {

  /** The 500 for a bug of Levee's own: the request was not completed (never Jetty's HTML page). */
  public static final ApiError UNEXPECTED = ApiError.api("Levee failed unexpectedly; the request was not completed.")
      .because(RefusalReason.INTERNAL_ERROR);

  /** The request attribute in which {@link #send} leaves the reason of the error it answered with. */
  private static final String REFUSAL = LeveeErrors.class.getName() + ".refusal";

  private LeveeErrors() {}

  /**
   * The answer to a path Levee does not serve: 404 {@code not_found_error} naming the method and path
   * as sent (cut and escaped: {@link ClientText#shown}), {@code refusal=unknown_path}.
   */
  public static ApiError unknownPath(String method, String path) {
    return ApiError.notFound("Levee does not serve " + ClientText.shown(method) + " " + ClientText.shown(path))
        .because(RefusalReason.UNKNOWN_PATH);
  }

  /**
   * Answers with {@code error} and completes {@code callback}. The id is the one the dispatcher
   * put in {@code x-levee-request-id} for this exchange (it names every {@code /v1/messages},
   * batches, jobs and admin exchange); without one the body has no {@code request_id}. The error's
   * {@link ApiError#reason} stays with the exchange's request ({@link #refusalOf}), so that the
   * dispatcher, which sees only the status a handler sent, logs and counts why.
   */
  public static void send(Response response, Callback callback, ApiError error) {
    Request request = response.getRequest();
    if (request != null) {
      request.setAttribute(REFUSAL, error.reason());
    }
    String id = response.getHeaders().get(LeveeHeaders.REQUEST_ID);
    if (id != null) {
      response.getHeaders().put(LeveeHeaders.ANSWER_REQUEST_ID, id);
    }
    ServerIo.json(response, callback, error.status(), error.toBytes(id));
  }

  /**
   * The {@link ApiError#reason} of the error {@link #send} answered {@code request} with — a code,
   * never the error's message, which may quote what the client sent — or null when it sent none
   * (the handler answered otherwise: its own answer, a relayed or a replayed one).
   */
  public static RefusalReason refusalOf(Request request) {
    return request.getAttribute(REFUSAL) instanceof RefusalReason reason ? reason : null;
  }
}
