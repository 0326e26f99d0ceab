package dev.levee.anthropic.server;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;

/**
 * Writes the status line of a 529 as {@code HTTP/1.1 529 Overloaded}. Jetty knows no reason phrase
 * for 529 (not an IANA status; the Anthropic API's {@code overloaded_error}) and repeats the code
 * instead ({@code 529 529}). Clients ignore the phrase (RFC 9112 §4); people reading {@code curl -i}
 * or a proxy log do not. Every other status keeps Jetty's phrase. Stateless; one small wrapper per
 * exchange, which acts only on the write that commits the response.
 */
final class OverloadedReason implements HttpConfiguration.Customizer {

  private static final int OVERLOADED = 529;

  @Override
  public Request customize(Request request, HttpFields.Mutable responseHeaders) {
    request.addHttpStreamWrapper(Phrase::new);
    return request;
  }

  private static final class Phrase extends HttpStream.Wrapper {

    Phrase(HttpStream wrapped) {
      super(wrapped);
    }

    @Override
    public void send(MetaData.Request request, MetaData.Response response, boolean last, ByteBuffer content,
        Callback callback) {
      if (response != null && response.getStatus() == OVERLOADED && response.getReason() == null) { // the committing write
        response = new MetaData.Response(OVERLOADED, "Overloaded", response.getHttpVersion(), response.getHttpFields(),
            response.getContentLength(), response.getTrailersSupplier());
      }
      super.send(request, response, last, content, callback);
    }
  }
}
