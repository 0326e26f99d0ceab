package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.Gateway;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression (issue "close to the null hop"): a JSON answer left only after stage 6 had kept the
 * request's books — the cache write-back, whose key is a pass over the whole request body (~0.2 ms
 * for 100 KB, ~2 ms for 1 MB), the SLO, metrics and trace — so every client waited on them for an
 * answer Levee already had. The call is still settled first; the answer is then written, and the
 * books kept after it, on the same thread: the server reads the connection's next request once
 * the handler has returned, so that request finds this answer in the cache, as before.
 *
 * <p>Stage 6's books are watched through the trace: the request's server span ends there, and a
 * span processor here holds the first one on a latch.
 */
class JsonAnswerBeforeBookkeepingRegressionTest {

  private static final String BODY = "{\"model\":\"s\",\"max_tokens\":64,"
      + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static final String ANSWER = "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"a\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"Hello there\"}],\"stop_reason\":\"end_turn\","
      + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}";

  @TempDir
  Path queueFolder; // the gateway's job store, deleted after each test

  @Test
  void theClientHasTheWholeJsonAnswerWhileTheBooksAreHeld() throws Exception {
    CountDownLatch keeping = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> ScriptedUpstream.Answer.json(ANSWER));
        Gateway gateway = gateway(upstream, keeping, release);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      try {
        CompletableFuture<HttpResponse<String>> sent = http.sendAsync(HttpRequest.newBuilder(
                gateway.baseUrl().resolve("/v1/messages")).header("content-type", "application/json")
            .header("x-api-key", "sk-test-client-key").header("anthropic-version", "2023-06-01")
            .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());

        HttpResponse<String> response = sent.get(20, TimeUnit.SECONDS); // its whole body, by content-length
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).isEqualTo(ANSWER);
        assertThat(keeping.await(20, TimeUnit.SECONDS)).as("stage 6's books ran, and are held still").isTrue();
        assertThat(release.getCount()).isEqualTo(1);
      } finally {
        release.countDown();
      }
    }
  }

  /**
   * The connection's next request is read once the books of the one before are kept: the
   * upstream sees it only after they are released. (Shown by its absence for a second first: the
   * time a server that does not wait takes to pass a request on.)
   */
  @Test
  void theConnectionsNextRequestIsReadOnceTheBooksAreKept() throws Exception {
    CountDownLatch keeping = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch secondArrived = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    AtomicBoolean secondBeforeRelease = new AtomicBoolean();
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> {
          if (calls.incrementAndGet() == 2) {
            secondBeforeRelease.set(release.getCount() > 0);
            secondArrived.countDown();
          }
          return ScriptedUpstream.Answer.json(ANSWER);
        });
        Gateway gateway = gateway(upstream, keeping, release);
        Socket client = new Socket()) {
      try {
        client.connect(new InetSocketAddress("127.0.0.1", gateway.baseUrl().getPort()));
        client.setSoTimeout(20_000);
        OutputStream out = client.getOutputStream();
        InputStream in = client.getInputStream();

        out.write(request());
        out.flush();
        assertThat(RawHttp.head(in)).startsWith("HTTP/1.1 200");
        assertThat(keeping.await(20, TimeUnit.SECONDS)).as("the first request's books, held").isTrue();
        out.write(request()); // the same connection, while the first one's books are held
        out.flush();
        secondArrived.await(1, TimeUnit.SECONDS);
      } finally {
        release.countDown();
      }
      assertThat(secondArrived.await(20, TimeUnit.SECONDS)).as("the second request, passed on").isTrue();
      assertThat(secondBeforeRelease).as("the second request was read before the first one's books were kept")
          .isFalse();
    }
  }

  private static byte[] request() {
    return ("POST /v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
        + "x-api-key: sk-test-client-key\r\nanthropic-version: 2023-06-01\r\ncontent-length: "
        + BODY.length() + "\r\n\r\n" + BODY).getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * A gateway in front of {@code upstream} whose first request's stage 6, as it traces the
   * request, counts {@code keeping} down and waits for {@code release}.
   */
  private Gateway gateway(ScriptedUpstream upstream, CountDownLatch keeping, CountDownLatch release)
      throws Exception {
    AtomicBoolean first = new AtomicBoolean(true);
    return ServerSpanHook.gateway(upstream, queueFolder, span -> {
      if (first.getAndSet(false)) {
        keeping.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    });
  }
}
