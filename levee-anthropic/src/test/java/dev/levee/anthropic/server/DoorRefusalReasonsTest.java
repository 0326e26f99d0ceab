package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each refusal the server's door makes tells its listeners why, as a code ({@link
 * ApiError#reason}): the gateway's access log said only the error type ({@code overloaded_error}
 * for a full server and a stopping one alike), and could not quote the message, which may hold
 * what the client sent.
 */
class DoorRefusalReasonsTest {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private final BlockingQueue<ApiError> heard = new LinkedBlockingQueue<>();
  private final RequestGuard.Refusals refusals = (method, path, beganNanos, requestId, error) -> heard.add(error);

  @Test
  void overATenantsLimitAndOverTheServersEachSayWhich() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withMaxConcurrent(2, 1), refusals)) {
      CompletableFuture<HttpResponse<String>> heldA = HTTP.sendAsync(
          ServerLimitsRegressionTest.post(server, "/v1/json", "tenant-a"), HttpResponse.BodyHandlers.ofString());
      assertThat(server.awaitHeld(1)).isTrue();
      assertThat(send(server, "tenant-a")).isEqualTo(429);
      assertThat(next()).isEqualTo(RefusalReason.TENANT_CONCURRENCY_LIMIT);

      CompletableFuture<HttpResponse<String>> heldB = HTTP.sendAsync(
          ServerLimitsRegressionTest.post(server, "/v1/json", "tenant-b"), HttpResponse.BodyHandlers.ofString());
      assertThat(server.awaitHeld(1)).isTrue();
      assertThat(send(server, "tenant-c")).isEqualTo(529);
      assertThat(next()).isEqualTo(RefusalReason.SERVER_CONCURRENCY_LIMIT);

      server.release.countDown();
      assertThat(heldA.get().statusCode()).isEqualTo(200);
      assertThat(heldB.get().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void headersAndBodiesTooSlowEachSayWhich() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT.withTimeouts(Duration.ofMillis(300), 1_000), refusals);
         Socket slowHeaders = server.socket();
         Socket slowBody = server.socket()) {
      assertThat(TestServer.exchange(slowHeaders, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n"))
          .startsWith("HTTP/1.1 408");
      assertThat(next()).isEqualTo(RefusalReason.HEADERS_TOO_SLOW);

      assertThat(TestServer.exchange(slowBody, "POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n"
          + "content-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"model\":\"claude\",")).startsWith("HTTP/1.1 408");
      assertThat(next()).isEqualTo(RefusalReason.BODY_TOO_SLOW);
    }
  }

  @Test
  void aRequestWhileTheServerStopsSaysSo() throws Exception {
    try (TestServer server = new TestServer(ServerLimits.DEFAULT, refusals)) {
      assertThat(VirtualThreadServer.guard(server.server).drain()).isZero(); // nothing in flight: at once

      assertThat(send(server, "tenant-a")).isEqualTo(503);
      assertThat(next()).isEqualTo(RefusalReason.SHUTTING_DOWN);
    }
  }

  private static int send(TestServer server, String key) throws Exception {
    return HTTP.send(ServerLimitsRegressionTest.post(server, "/v1/json", key), HttpResponse.BodyHandlers.ofString())
        .statusCode();
  }

  /** The reason of the next refusal heard (written after its answer: waited for, at most 20 s). */
  private RefusalReason next() throws InterruptedException {
    ApiError error = heard.poll(20, TimeUnit.SECONDS);
    assertThat(error).as("a refusal heard").isNotNull();
    return error.reason();
  }
}
