package dev.levee.gateway.tier;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.tier.TierTransition;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts each tier transition as JSON — {@code {"feature","from","to","reason","time"}} — to a
 * configured URL, off the request path, at most 5 s per post; failures are logged, never retried
 * (the next transition carries the current state).
 */
final class Webhook implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Webhook.class);

  private final URI url;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  Webhook(String url) {
    this.url = URI.create(url);
  }

  void post(TierTransition t, Instant at) {
    ObjectNode body = Json.MAPPER.createObjectNode();
    body.put("feature", t.feature());
    body.put("from", t.from().name());
    body.put("to", t.to().name());
    body.put("reason", t.reason());
    body.put("time", at.toString());
    HttpRequest request = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(5))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(Json.bytes(body))).build();
    http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, error) -> {
      if (error != null) {
        LOG.warn("tier webhook to {} failed: {}", url.getHost(), error.toString()); // the full URL may hold a secret
      } else if (response.statusCode() >= 300) {
        LOG.warn("tier webhook to {} answered {}", url.getHost(), response.statusCode());
      }
    });
  }

  @Override
  public void close() {
    http.close();
  }
}
