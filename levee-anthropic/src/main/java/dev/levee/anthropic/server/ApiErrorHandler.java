package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Answers the errors Jetty raises before a handler runs (an ambiguous or malformed URI, a URI or
 * headers too long, an unparsable request) in the Messages API's error shape instead of Jetty's
 * HTML page, so that every client of Levee's servers can parse every answer. The status is
 * Jetty's; the type follows {@link ApiError#typeFor(int)}. Like the guard's own refusals, each is
 * named by the server's lanes ({@code request_id}) and told to their {@link RequestGuard.Refusals}
 * (the gateway's access log and metrics).
 */
final class ApiErrorHandler extends ErrorHandler {

  private final RequestGuard.Lanes lanes;

  ApiErrorHandler(RequestGuard.Lanes lanes) {
    this.lanes = lanes;
  }

  @Override
  protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
      Callback callback) {
    String text = message == null || message.isBlank() ? HttpStatus.getMessage(code) : message;
    ApiError error = new ApiError(code, ApiError.typeFor(code), text);
    String id = lanes.name(response.getHeaders());
    ServerIo.json(response, callback, code, error.toBytes(id));
    lanes.refusals().refused(request.getHttpURI().getPath(), request.getBeginNanoTime(), id, error);
  }
}
