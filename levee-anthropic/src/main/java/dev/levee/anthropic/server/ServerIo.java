package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/** The few ways Levee's servers read a Jetty request's headers and write a whole response. */
public final class ServerIo {

  private ServerIo() {}

  /**
   * Puts {@code retry-after: 1} on {@code response} when {@code error} refuses for load (429, or 503
   * and above: the door's concurrency and memory limits, a stopping server); others carry none.
   */
  public static void retryAfterIfLoad(Response response, ApiError error) {
    if (error.status() == 429 || error.status() >= 503) {
      response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
    }
  }

  /**
   * The request's headers, names lower-case (Jetty's own lower-case name for the headers it knows,
   * so most names cost nothing), in arrival order; a name sent twice in any case is one entry, its
   * values in order.
   */
  public static LowerCaseHeaders headers(Request request) {
    LowerCaseHeaders headers = new LowerCaseHeaders();
    for (HttpField field : request.getHeaders()) {
      String name = field.getLowerCaseName();
      List<String> values = headers.get(name);
      if (values == null) { // nearly always: one value, an immutable list of one (a stream keeps its request's headers)
        headers.put(name, Collections.singletonList(field.getValue()));
      } else {
        List<String> more = new ArrayList<>(values.size() + 1);
        more.addAll(values);
        more.add(field.getValue());
        headers.put(name, Collections.unmodifiableList(more));
      }
    }
    return headers;
  }

  /** Writes a complete response: status, content type and body, then completes {@code callback}. */
  public static void send(Response response, Callback callback, int status, String contentType, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** Writes a complete JSON response. */
  public static void json(Response response, Callback callback, int status, byte[] body) {
    send(response, callback, status, "application/json", body);
  }

  /** Answers with {@code error} in the API's shape (no request id). */
  public static void error(Response response, Callback callback, ApiError error) {
    json(response, callback, error.status(), error.toBytes(null));
  }
}
