package dev.levee.gateway.e2e;

import static dev.levee.gateway.e2e.ScriptedUpstream.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.pipeline.StreamThresholds;
import io.opentelemetry.sdk.trace.ReadableSpan;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression (issue "close to the null hop", and session 13's review): a stream's end — its
 * {@code message_stop} (or {@code event: error}) and the body's last chunk — left only after stage
 * 6 had recorded the stream (cache store, SLO, metrics, trace) and stage 7 had run, so the client
 * waited on Levee's bookkeeping for an answer it already had, and a failure in that bookkeeping
 * aborted the exchange: the client saw a complete answer cut before its end. The handler now ends
 * the stream as soon as the relay has ended and the cancellation scope closed, before stage 6,
 * with the last events and the last chunk in one write.
 *
 * <p>Stage 6 is watched through its trace: the request's server span ends in the Recorder, and a
 * span processor here holds it on a latch, or throws.
 */
class StreamEndBeforeBookkeepingRegressionTest {

  private static final String BODY = "{\"model\":\"s\",\"max_tokens\":64,\"stream\":true,"
      + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";

  private static final String STOP = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

  @TempDir
  Path queueFolder; // the gateway's job store, deleted after each test

  @Test
  void theClientHasTheWholeStreamWhileStageSixIsHeld() throws Exception {
    CountDownLatch recording = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> Answer.stream(messageStart("a", 5), textStart(),
        text("Hello"), text(" there"), end("end_turn", 2)));
        Gateway gateway = gateway(upstream, span -> {
          recording.countDown();
          try {
            release.await(); // stage 6 held until the test has checked what the client got
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      try {
        CompletableFuture<HttpResponse<String>> sent =
            http.sendAsync(post(gateway), HttpResponse.BodyHandlers.ofString());

        HttpResponse<String> response = sent.get(20, TimeUnit.SECONDS); // the body's end came: its last chunk read
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("Hello", " there", "\"stop_reason\":\"end_turn\"").endsWith(STOP);
        assertThat(recording.await(20, TimeUnit.SECONDS)).as("stage 6 ran, and is held still").isTrue();
        assertThat(release.getCount()).isEqualTo(1);
      } finally {
        release.countDown();
      }
    }
  }

  @Test
  void aFailureInStageSixCutsNoCompleteStream() throws Exception {
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> Answer.stream(messageStart("a", 5), textStart(),
        text("Hello"), end("end_turn", 1)));
        Gateway gateway = gateway(upstream, span -> {
          throw new IllegalStateException("bookkeeping failed");
        });
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      HttpResponse<String> response = http.sendAsync(post(gateway), HttpResponse.BodyHandlers.ofString())
          .get(20, TimeUnit.SECONDS); // an aborted exchange fails it (a body cut before its last chunk)

      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).contains("Hello").endsWith(STOP);
    }
  }

  /**
   * Regression: the server's drain ends with the exchanges, and a stream's completes before its
   * stage 6, so {@code Gateway.close} went on to close the stores (metrics, tracing, the job store)
   * while the stage 6 of a stream that had just ended still ran. A shutdown now waits for it
   * (within {@code server.shutdown-grace}). Streams on a thread of their own (many in flight)
   * showed it: one on Jetty's thread returns from the handler only after its stage 7.
   */
  @Test
  void aShutdownWaitsForTheStageSixOfAStreamThatHasEnded() throws Exception {
    CountDownLatch recording = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean closeReturned = new AtomicBoolean();
    AtomicBoolean closedBeforeStageSixEnded = new AtomicBoolean();
    StreamThresholds.everyStreamOnItsOwnThread();
    try (ScriptedUpstream upstream = new ScriptedUpstream(request -> Answer.stream(messageStart("a", 5), textStart(),
        text("Hello"), end("end_turn", 1)));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()) {
      Gateway gateway = gateway(upstream, span -> {
        recording.countDown();
        boolean interrupted = false;
        while (true) { // bookkeeping that does not stop for an interrupt, as a store's write may not
          try {
            release.await();
            break;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        closedBeforeStageSixEnded.set(closeReturned.get()); // the last thing stage 6 does here
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      });
      CompletableFuture<Void> closing;
      try {
        HttpResponse<String> response = http.sendAsync(post(gateway), HttpResponse.BodyHandlers.ofString())
            .get(20, TimeUnit.SECONDS);
        assertThat(response.body()).endsWith(STOP);
        assertThat(recording.await(20, TimeUnit.SECONDS)).as("stage 6 ran, and is held").isTrue();
        closing = CompletableFuture.runAsync(() -> {
          try {
            gateway.close();
          } catch (Exception e) {
            throw new CompletionException(e);
          }
          closeReturned.set(true);
        });
        try {
          closing.get(1, TimeUnit.SECONDS); // the time a close that does not wait takes to return
        } catch (TimeoutException waiting) {
          // it waits for stage 6
        }
      } finally {
        release.countDown();
      }
      closing.get(20, TimeUnit.SECONDS);
      assertThat(closedBeforeStageSixEnded).as("close returned before the stream's stage 6 ended").isFalse();
    } finally {
      StreamThresholds.restore();
    }
  }

  /** A gateway in front of {@code upstream} whose stage 6 runs {@code onRequestSpanEnd} as it traces the request. */
  private Gateway gateway(ScriptedUpstream upstream, Consumer<ReadableSpan> onRequestSpanEnd) throws Exception {
    return ServerSpanHook.gateway(upstream, queueFolder, onRequestSpanEnd);
  }

  private static HttpRequest post(Gateway gateway) {
    return HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/messages"))
        .header("content-type", "application/json").header("x-api-key", "sk-test-client-key")
        .header("anthropic-version", "2023-06-01").POST(HttpRequest.BodyPublishers.ofString(BODY)).build();
  }
}
