package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Regression (session 27): a handler that failed before its answer began got Jetty's 500, in the
 * API's shape but with the failure's {@code toString} as its message — {@code
 * "java.lang.OutOfMemoryError: Java heap space"} reached a client whose batch ran the heap out,
 * though docs/server.md says no answer carries Java exception text. The message is now fixed words;
 * what failed stays in the server's log.
 */
class HandlerFailureTextRegressionTest {

  @ParameterizedTest
  @ValueSource(strings = {"runtime", "error"})
  void aHandlersFailureIsAnsweredWithoutItsText(String kind) throws Exception {
    Server server = VirtualThreadServer.create("127.0.0.1", 0, Duration.ofMinutes(1), "test", new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        if (kind.equals("error")) {
          throw new OutOfMemoryError("Java heap space");
        }
        throw new IllegalStateException("at /internal/path: secret detail");
      }
    });
    server.start();
    try {
      HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + VirtualThreadServer.port(server) + "/v1/messages"))
          .POST(HttpRequest.BodyPublishers.ofString("{}")).build(), HttpResponse.BodyHandlers.ofString());

      assertThat(answer.statusCode()).isEqualTo(500);
      assertThat(answer.body()).contains("\"type\":\"api_error\"").contains(ApiErrorHandler.INTERNAL)
          .doesNotContain("java.lang").doesNotContain("secret detail").doesNotContain("heap space");
    } finally {
      server.stop();
    }
  }
}
