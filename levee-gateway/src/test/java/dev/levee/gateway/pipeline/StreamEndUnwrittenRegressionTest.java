package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.sse.SseEvent;
import dev.levee.anthropic.sse.SseWriter;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * Regression (review, session 16): since a stream's {@code message_stop} leaves with the body's last
 * chunk, a client that went away just before that write never gets it — yet the access record said
 * {@code stream_complete}, because the {@link Responder} read only what the relay saw. {@link
 * ClientResponse#aborted} now says the end was not written, and the record says {@code
 * stream_client_gone}. The wire is a {@link Response} whose writes fail as a reset connection's do.
 */
class StreamEndUnwrittenRegressionTest {

  private final List<Boolean> lasts = new ArrayList<>();
  private final List<Throwable> failed = new ArrayList<>();

  @Test
  void anEndWhoseWriteFailsLeavesTheExchangeAborted() throws Exception {
    ClientResponse client = new ClientResponse(response(false), callback());
    SseWriter stream = client.startStream(Map.of());
    stream.write(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"), false); // gathered for the end

    client.endStream();

    assertThat(lasts).as("the end was tried, as the last write").containsExactly(true);
    assertThat(client.aborted()).isTrue();
    assertThat(failed).singleElement().isInstanceOf(EofException.class);
    assertThat(client.endedByShutdown()).isFalse();
  }

  @Test
  void anEndWrittenLeavesItComplete() throws Exception {
    ClientResponse client = new ClientResponse(response(true), callback());
    SseWriter stream = client.startStream(Map.of());
    stream.write(new SseEvent("message_stop", "{\"type\":\"message_stop\"}"), false);

    client.endStream();

    assertThat(client.aborted()).isFalse();
    assertThat(failed).isEmpty();
  }

  private Callback callback() {
    return Callback.from(() -> { }, failed::add);
  }

  /** A response whose writes succeed, or fail as a connection the client reset. */
  private Response response(boolean writes) {
    HttpFields.Mutable headers = HttpFields.build();
    Request request = (Request) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Request.class},
        (proxy, method, args) -> null); // no attribute: not ended by a shutdown
    return (Response) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Response.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getHeaders" -> headers;
          case "getRequest" -> request;
          case "isCommitted" -> false;
          case "write" -> {
            lasts.add((Boolean) args[0]);
            ByteBuffer content = (ByteBuffer) args[1];
            content.position(content.limit());
            Callback written = (Callback) args[2];
            if (writes) {
              written.succeeded();
            } else {
              written.failed(new EofException("reset by peer"));
            }
            yield null;
          }
          default -> null;
        });
  }
}
