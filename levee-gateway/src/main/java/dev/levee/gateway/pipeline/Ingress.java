package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.upstream.OriginalRequest;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * The first stage: reads and checks a client request before anything is sent upstream. A body
 * over the size limit gets 413 {@code request_too_large}; a body that is not a JSON object with
 * a string {@code model} gets 400 {@code invalid_request_error}. Neither is forwarded.
 */
final class Ingress {

  /** A request refused at the door, with the error to answer. */
  static final class Refused extends Exception {
    final transient ApiError error;

    Refused(ApiError error) {
      super(error.message());
      this.error = error;
    }
  }

  private final long maxBody;
  private final AtomicLong sequence = new AtomicLong();
  private final String instance = Integer.toString(java.util.concurrent.ThreadLocalRandom.current().nextInt(1 << 20, 1 << 25), 36);

  Ingress(long maxBody) {
    this.maxBody = maxBody;
  }

  /** A fresh id for the next request (access log and {@code x-levee-request-id}). */
  String nextId() {
    return "lv_" + instance + "_" + sequence.incrementAndGet();
  }

  InboundRequest read(Request request, String id) throws Refused {
    long declared = request.getHeaders().getLongField("content-length");
    if (declared > maxBody) {
      throw new Refused(tooLarge());
    }
    byte[] body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
    } catch (IOException e) {
      throw new Refused(ApiError.invalidRequest("could not read the request body: " + e.getMessage()));
    }
    if (body.length > maxBody) {
      throw new Refused(tooLarge());
    }
    MessagesRequest parsed;
    try {
      parsed = MessagesRequest.parse(body);
    } catch (MessagesRequest.InvalidRequestException e) {
      throw new Refused(ApiError.invalidRequest(e.getMessage()));
    }
    return new InboundRequest(id, new OriginalRequest(
        request.getHttpURI().getPath(), request.getHttpURI().getQuery(), ServerIo.headers(request), parsed));
  }

  private ApiError tooLarge() {
    return ApiError.requestTooLarge("request body exceeds the gateway's limit of " + maxBody + " bytes");
  }
}
