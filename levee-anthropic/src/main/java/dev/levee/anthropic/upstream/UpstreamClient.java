package dev.levee.anthropic.upstream;

import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sends calls upstream: plain {@code http:} with {@link PlainHttp1} (blocking HTTP/1.1 on the
 * caller's virtual thread, pooled keep-alive connections), {@code https:} with the JDK's {@link
 * HttpClient} (HTTP/2 over TLS, pooled); bodies stream either way.
 *
 * <p>{@link #send} waits for the response headers for at most the given timeout; the body then
 * streams, and limits on it (time to first token, stream idle) belong to the caller, who closes
 * the response to abort. A {@link Cancellation} tears the call down from any thread. Never logs
 * headers (they carry API keys). Thread-safe; one instance serves every request.
 */
public final class UpstreamClient implements AutoCloseable {

  private final Duration connectTimeout;
  private final PlainHttp1 plain;
  private volatile HttpClient http; // created on the first https call

  public UpstreamClient(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
    this.plain = new PlainHttp1(connectTimeout);
  }

  /**
   * How many head deadlines ran out while the upstream's answer waited for Levee to read it, and
   * waited for Levee instead of failing the call (plain {@code http:} upstreams; {@link Watchdog}).
   */
  public long lateReaders() {
    return plain.lateReaders();
  }

  private HttpClient http() {
    HttpClient client = http;
    if (client == null) {
      synchronized (this) {
        client = http;
        if (client == null) {
          http = client = HttpClient.newBuilder()
              .connectTimeout(connectTimeout)
              .followRedirects(HttpClient.Redirect.NEVER)
              .build();
        }
      }
    }
    return client;
  }

  /**
   * Sends {@code request} and returns once its headers arrived.
   *
   * @param timeout the longest wait for the response headers
   * @throws HttpTimeoutException when the headers did not arrive in time (the call is aborted)
   * @throws IOException when the connection failed or was reset
   * @throws InterruptedException when the calling thread was interrupted
   * @throws CancellationException when {@code cancellation} fired
   */
  public UpstreamResponse send(UpstreamRequest request, Duration timeout, Cancellation cancellation)
      throws IOException, InterruptedException {
    if ("http".equals(request.uri().getScheme())) {
      return plain.send(request, timeout, cancellation);
    }
    HttpRequest.Builder builder = HttpRequest.newBuilder(request.uri())
        .method(request.method(), request.body().length == 0 && request.method().equals("GET")
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(request.body()));
    request.headers().forEach((name, values) -> values.forEach(v -> builder.header(name, v)));
    CompletableFuture<HttpResponse<InputStream>> pending =
        http().sendAsync(builder.build(), HttpResponse.BodyHandlers.ofInputStream());
    AutoCloseable registration = cancellation.register(() -> abort(pending));
    try {
      HttpResponse<InputStream> response = pending.get(Math.max(1, timeout.toNanos()), TimeUnit.NANOSECONDS);
      return new UpstreamResponse(response.statusCode(), UpstreamResponse.lowerCase(response.headers().map()),
          response.body(), cancellation);
    } catch (TimeoutException e) {
      abort(pending);
      throw new HttpTimeoutException("no response headers within " + timeout.toMillis() + " ms");
    } catch (ExecutionException e) {
      if (cancellation.isCancelled()) {
        throw new CancellationException("client went away");
      }
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      throw new IOException(cause);
    } catch (CancellationException e) {
      throw new CancellationException("client went away");
    } catch (InterruptedException e) {
      abort(pending);
      throw e;
    } finally {
      closeQuietly(registration);
    }
  }

  private static void abort(CompletableFuture<HttpResponse<InputStream>> pending) {
    pending.cancel(true);
    pending.thenAccept(r -> {
      try {
        r.body().close();
      } catch (IOException ignored) {
        // aborting
      }
    });
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // unregistering cannot meaningfully fail
    }
  }

  @Override
  public void close() {
    plain.close();
    HttpClient client = http;
    if (client != null) {
      client.close();
    }
  }
}
