package dev.levee.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.upstream.Endpoint;
import dev.levee.core.chain.Target;
import dev.levee.core.time.Ticker;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * The {@code created_at} of an alias's model object: the release date of the first model of its
 * chain, as that model's upstream states it ({@code GET /v1/models/{model}}, or a list page that
 * holds it), else the time the gateway started (when Levee made the alias from its configuration;
 * RFC 3339, whole seconds, UTC). Anthropic's Models API may give a model whose release date is unknown the
 * epoch, but an alias Levee owns does have a date of its own, and a 1970 beside this year's models
 * reads as a bug. What the upstream said (a date, or 404: it does not know the model) is kept for
 * the life of the process (a release date does not change), for the configured first targets only,
 * so the table never grows past the aliases; a look-up that failed otherwise (unreachable, slower
 * than {@value #LOOKUP_SECONDS} s, 401, 5xx) is not kept, and is tried again {@value #RETRY_SECONDS}
 * s later at the earliest (until then the start time), so an upstream that is down costs a listing
 * at most one look-up a target a minute, not one a request. A dated alias has the same value after
 * every restart, as long as the upstream answers; an undated one, the restart's. Thread-safe.
 */
final class ReleaseDates {

  /** How long a look-up may take, s: a model object should not wait long on a date. */
  static final int LOOKUP_SECONDS = 2;

  /** How long after a failed look-up a target is not asked again, s. */
  static final int RETRY_SECONDS = 60;

  private final Set<Target> firsts;
  private final Function<Target, Endpoint> endpoints;
  private final UpstreamGet upstream;
  private final Map<Target, String> known = new ConcurrentHashMap<>();
  private final Map<Target, Long> retryAt = new ConcurrentHashMap<>(); // ticker nanos; first targets only
  private final Ticker ticker;
  private final String loadedAt;

  /**
   * @param firsts the first target of every alias's chain: the only targets looked up
   * @param endpoints the endpoint of each target's upstream
   * @param ticker when a failed look-up may be tried again
   * @param loadedAt when the gateway started with its configuration: the date of an alias whose
   *     first model's date the upstream does not state
   */
  ReleaseDates(Set<Target> firsts, Function<Target, Endpoint> endpoints, UpstreamGet upstream, Ticker ticker,
      Instant loadedAt) {
    this.firsts = Set.copyOf(firsts);
    this.endpoints = endpoints;
    this.upstream = upstream;
    this.ticker = ticker;
    this.loadedAt = loadedAt.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * {@code target}'s release date as RFC 3339, asking its upstream when it is not known yet and
   * {@code lookUp} allows (with the client's headers); the gateway's start time when the
   * upstream does not say.
   */
  String of(Target target, Map<String, List<String>> clientHeaders, boolean lookUp) {
    String date = known.get(target);
    if (date != null || !lookUp || !firsts.contains(target)) {
      return date != null ? date : loadedAt;
    }
    Endpoint endpoint = endpoints.apply(target);
    Long retry = retryAt.get(target);
    if (endpoint == null || retry != null && ticker.nanos() < retry) {
      return loadedAt;
    }
    try {
      UpstreamGet.Answer answer = upstream.get(endpoint,
          "/v1/models/" + URLEncoder.encode(target.model(), StandardCharsets.UTF_8).replace("+", "%20"), clientHeaders,
          Duration.ofSeconds(LOOKUP_SECONDS));
      if (answer.status() == 200) {
        learn(target, Json.tryParse(answer.body()));
      }
      if (answer.status() == 200 || answer.status() == 404) { // the upstream's word: asked once
        known.putIfAbsent(target, loadedAt);
      } else {
        failed(target);
      }
    } catch (IOException e) {
      failed(target); // the list answers without it; asked again a minute on
      return loadedAt;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return loadedAt;
    }
    return known.getOrDefault(target, loadedAt);
  }

  private void failed(Target target) {
    retryAt.put(target, ticker.nanos() + Duration.ofSeconds(RETRY_SECONDS).toNanos());
  }

  /** Keeps the dates of the listed models that are first targets on {@code upstreamName} (a list page's {@code data}). */
  void learnAll(String upstreamName, JsonNode data) {
    for (JsonNode model : data) {
      learn(new Target(upstreamName, model.path("id").asText()), model);
    }
  }

  private void learn(Target target, JsonNode model) {
    String created = model == null ? null : model.path("created_at").asText(null);
    if (created == null || !firsts.contains(target) || !target.model().equals(model.path("id").asText())) {
      return;
    }
    try {
      OffsetDateTime.parse(created); // only a well-formed RFC 3339 time is passed on
      known.put(target, created);
    } catch (DateTimeParseException e) {
      // not a date: the alias keeps the start time
    }
  }
}
