package dev.levee.anthropic.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.io.ByteArrayInputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The bodies held at once are bounded ({@link ServerLimits#maxBodyMemory()}), a tenant to half.
 * Before, only {@code max-concurrent} × {@code max-body} bounded them: two 250 MB Message Batches
 * at once made one fail with {@code OutOfMemoryError} under {@code -Xmx1g} (its 500 quoting the
 * error), and whatever else allocated then failed with it, whichever tenant it served.
 */
class BodyMemoryRegressionTest {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private static final int KIB = 1024;
  private static final ServerLimits D = ServerLimits.DEFAULT;
  /** Bodies of at most 1 MiB; 3 MiB held at once, 1.5 MiB a tenant. */
  private static final ServerLimits LIMITS = new ServerLimits(D.maxConnections(), D.acceptQueue(), D.headerTimeout(),
      D.minBodyRate(), D.maxConcurrent(), D.maxConcurrentPerTenant(), D.shutdownGrace(), 1024 * KIB, D.sendTimeout(),
      3072 * KIB);

  private final BlockingQueue<ApiError> heard = new LinkedBlockingQueue<>();
  private final RequestGuard.Refusals refusals = (method, path, beganNanos, requestId, error) -> heard.add(error);

  @Test
  void bodiesPastATenantsHalfOrTheServersWholeAreRefusedAtOnceAndTheirBytesComeBack() throws Exception {
    try (TestServer server = new TestServer(LIMITS, refusals)) {
      CompletableFuture<HttpResponse<String>> a = held(server, "tenant-a", 1000 * KIB);
      assertThat(server.awaitHeld(1)).isTrue();

      HttpResponse<String> aAgain = HTTP.send(post(server, "tenant-a", 1000 * KIB, false),
          HttpResponse.BodyHandlers.ofString());
      assertThat(aAgain.statusCode()).isEqualTo(429); // tenant-a's half is 1,536 KiB: 1,000 + 1,000 does not fit
      assertThat(aAgain.headers().firstValue("retry-after")).contains("1");
      assertThat(aAgain.body()).contains("\"type\":\"rate_limit_error\"").contains("max-body-memory");
      assertThat(next()).isEqualTo(RefusalReason.TENANT_BODY_MEMORY_LIMIT);

      CompletableFuture<HttpResponse<String>> b = held(server, "tenant-b", 1000 * KIB);
      CompletableFuture<HttpResponse<String>> c = held(server, "tenant-c", 1000 * KIB);
      assertThat(server.awaitHeld(2)).isTrue(); // other tenants are served beside tenant-a's upload

      HttpResponse<String> d = HTTP.send(post(server, "tenant-d", 1000 * KIB, false), HttpResponse.BodyHandlers.ofString());
      assertThat(d.statusCode()).isEqualTo(529); // 3,000 KiB held of 3,072: 1,000 more does not fit
      assertThat(d.headers().firstValue("retry-after")).contains("1");
      assertThat(d.body()).contains("\"type\":\"overloaded_error\"");
      assertThat(next()).isEqualTo(RefusalReason.SERVER_BODY_MEMORY_LIMIT);

      server.release.countDown();
      assertThat(a.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(b.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(c.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(heldOnceSettled(server)).isZero();
      assertThat(HTTP.send(post(server, "tenant-d", 1000 * KIB, false), HttpResponse.BodyHandlers.ofString())
          .statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aBodyThatDoesNotFitIsReadToItsEndAndDroppedSoTheClientHearsWhyAndKeepsItsConnection() throws Exception {
    try (TestServer server = new TestServer(LIMITS, refusals);
         Socket socket = server.socket()) {
      CompletableFuture<HttpResponse<String>> a = held(server, "tenant-a", 1000 * KIB);
      assertThat(server.awaitHeld(1)).isTrue();

      String chunk = "x".repeat(600 * KIB); // 1,000 + 600 KiB: past tenant-a's 1,536, chunked
      java.io.OutputStream out = socket.getOutputStream();
      out.write(("POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: tenant-a\r\n"
          + "transfer-encoding: chunked\r\n\r\n" + Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n0\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      String answer = readAnswer(socket);
      assertThat(answer).startsWith("HTTP/1.1 429").contains("rate_limit_error").doesNotContainIgnoringCase("connection: close");
      assertThat(next()).isEqualTo(RefusalReason.TENANT_BODY_MEMORY_LIMIT);

      out.write("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      assertThat(readAnswer(socket)).as("the same connection serves the next request").startsWith("HTTP/1.1 200");

      server.release.countDown();
      assertThat(a.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(heldOnceSettled(server)).isZero();
    }
  }

  /**
   * Review (session 27): the door held a body's declared {@code content-length} before a byte of
   * it arrived, so two clients that sent headers and then a body at 1 KiB/s held 64 MiB for nine
   * hours and every other request with a body got 529. A client now holds only what it has sent.
   */
  @Test
  void aDeclaredLengthIsNotHeldBeforeItsBytesArrive() throws Exception {
    try (TestServer server = new TestServer(LIMITS, refusals);
         Socket silent = server.socket()) {
      silent.getOutputStream().write(("POST /v1/json HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: tenant-a\r\n"
          + "content-length: " + 1000 * KIB + "\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
      silent.getOutputStream().flush();

      CompletableFuture<HttpResponse<String>> a = held(server, "tenant-a", 1000 * KIB); // 1,000 + 1,000 > 1,536 if held
      assertThat(server.awaitHeld(1)).as("admitted beside the silent upload").isTrue();
      server.release.countDown();
      assertThat(a.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
    }
  }

  /** Reads one answer with a content-length body (the server's refusals and /health have one). */
  private static String readAnswer(Socket socket) throws java.io.IOException {
    java.io.InputStream in = socket.getInputStream();
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      head.append((char) b);
    }
    java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(head);
    int n = length.find() ? Integer.parseInt(length.group(1)) : 0;
    return head + new String(in.readNBytes(n), java.nio.charset.StandardCharsets.ISO_8859_1);
  }

  @Test
  void aLimitBelowTwiceTheLargestBodyIsRefusedByName() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServerLimits.DEFAULT.withMaxBodyMemory(40L << 20))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("max-body-memory must be at least twice max-body");
  }

  /** The bytes held once the exchanges ended: a permit closes just after its answer's last write. */
  private static long heldOnceSettled(TestServer server) throws InterruptedException {
    RequestGuard guard = VirtualThreadServer.guard(server.server);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (guard.inFlight() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    return guard.bodyBytesHeld();
  }

  private static CompletableFuture<HttpResponse<String>> held(TestServer server, String tenant, int bytes) {
    return HTTP.sendAsync(post(server, tenant, bytes, false), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest post(TestServer server, String tenant, int bytes, boolean chunked) {
    byte[] body = new byte[bytes];
    java.util.Arrays.fill(body, (byte) 'x');
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/v1/json"))
        .header("x-api-key", tenant).timeout(Duration.ofSeconds(30))
        .POST(chunked ? HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body))
            : HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
  }

  private RefusalReason next() throws InterruptedException {
    ApiError error = heard.poll(10, TimeUnit.SECONDS);
    assertThat(error).as("a refusal heard").isNotNull();
    return error.reason();
  }
}
