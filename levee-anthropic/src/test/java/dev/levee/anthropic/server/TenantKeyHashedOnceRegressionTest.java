package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.Test;

/**
 * The API key was hashed twice per request: by the door for its concurrency limit, and again by
 * ingress for the cache tenant. The door's hash is now remembered on the request and reused.
 */
class TenantKeyHashedOnceRegressionTest {

  @Test
  void theHandlerReusesTheHashTheDoorComputedForTheSameKey() throws Exception {
    AtomicReference<UnaryOperator<String>> seen = new AtomicReference<>();
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "test", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        seen.set(TenantKey.hasher(request));
        response.write(true, ByteBuffer.allocate(0), callback);
        return true;
      }
    }, ServerLimits.DEFAULT, RequestGuard.Lanes.NONE);
    server.start();
    try (HttpClient client = HttpClient.newHttpClient()) {
      client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + VirtualThreadServer.port(server) + "/v1/x"))
          .header("x-api-key", "sk-secret").GET().build(), HttpResponse.BodyHandlers.discarding());
    } finally {
      server.stop();
    }

    UnaryOperator<String> hasher = seen.get();
    String first = hasher.apply("sk-secret");
    assertThat(first).isEqualTo(TenantKey.keyHash("sk-secret"));
    assertThat(hasher.apply("sk-secret")).as("the remembered hash, not a new one").isSameAs(first);
    assertThat(hasher.apply("sk-other")).isEqualTo(TenantKey.keyHash("sk-other"));
    assertThat(hasher.toString()).doesNotContain("sk-secret");
  }
}
