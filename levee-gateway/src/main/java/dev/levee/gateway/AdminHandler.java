package dev.levee.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.Units;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.core.tier.Tier;
import dev.levee.gateway.jobs.JobsAdmin;
import dev.levee.gateway.pipeline.LeveeErrors;
import dev.levee.gateway.route.RouteDefaults;
import dev.levee.gateway.route.RouteHints;
import dev.levee.gateway.route.RouteReport;
import dev.levee.gateway.route.ScoreRouting;
import dev.levee.gateway.tier.TierBoard;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * {@code GET /admin/tiers} (every feature's tier as the cluster runs it on this replica, and whether
 * this replica holds its tier lease: {@link TierBoard#status()}) and {@code POST /admin/tiers/{feature}} with
 * {@code {"tier":"T2","for":"10m"}} to force a tier for a drill (it expires on its own; {@code
 * "tier":"auto"} lifts it); {@code GET /admin/route?alias=…&task=…} (also {@code latency-budget},
 * {@code prefer}, {@code input-tokens}, default 1,000): what the scoring router would choose now
 * and why ({@link RouteReport}); {@code GET /admin/jobs}, {@code GET /admin/jobs/{id}} and {@code
 * POST /admin/jobs/{id}/cancel}: list and cancel queued work ({@link JobsAdmin}). All need {@code
 * authorization: Bearer <admin.token>}; without a configured token they answer 404. A path of
 * theirs asked with another method gets 405 {@code invalid_request_error} with {@code allow}.
 */
final class AdminHandler {

  /** The longest a tier may be forced for: a drill, not a setting. */
  private static final Duration MAX_FORCE = Duration.ofHours(24);

  /** The input tokens {@code /admin/route} assumes when the query names none. */
  static final long DEFAULT_INPUT_TOKENS = 1000;

  private final byte[] token;
  private final TierBoard tiers;
  private final Aliases aliases;
  private final ScoreRouting routing;
  private final JobsAdmin jobs;

  AdminHandler(String token, TierBoard tiers) {
    this(token, tiers, null, null, null);
  }

  /**
   * @param aliases and {@code routing}: for {@code /admin/route}; null leaves it out
   * @param jobs {@code /admin/jobs…}; null leaves them out
   */
  AdminHandler(String token, TierBoard tiers, Aliases aliases, ScoreRouting routing, JobsAdmin jobs) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.tiers = tiers;
    this.aliases = aliases;
    this.routing = routing;
    this.jobs = jobs;
  }

  void handle(String path, Request request, Response response, Callback callback) {
    if (token.length == 0) {
      LeveeErrors.send(response, callback, ApiError.notFound("admin endpoints are off (set admin.token)")
          .because(RefusalReason.ADMIN_DISABLED));
      return;
    }
    String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    byte[] given = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) // one or more spaces (RFC 9110 §11.4)
        ? auth.substring(7).stripLeading().getBytes(StandardCharsets.UTF_8) : new byte[0];
    if (!MessageDigest.isEqual(token, given)) {
      LeveeErrors.send(response, callback, new ApiError(401, "authentication_error", "a valid admin token is required")
          .because(RefusalReason.BAD_ADMIN_TOKEN));
      return;
    }
    String allowed = allowed(path);
    String method = request.getMethod();
    if (allowed == null) {
      LeveeErrors.send(response, callback, ApiError.notFound("no admin endpoint " + ClientText.shown(method) + " "
          + ClientText.shown(path)).because(RefusalReason.UNKNOWN_PATH));
    } else if (!allowed.equals(method)) { // RFC 9110 §15.5.6, as the other paths answer a wrong method
      response.getHeaders().put("allow", allowed);
      LeveeErrors.send(response, callback, new ApiError(405, "invalid_request_error",
          ClientText.shown(method) + " is not allowed on "
          + ClientText.shown(path) + " (it takes " + allowed + ")").because(RefusalReason.METHOD_NOT_ALLOWED));
    } else if (path.equals("/admin/tiers")) {
      ObjectNode body = Json.MAPPER.createObjectNode();
      body.set("features", tiers.status());
      send(response, callback, 200, body);
    } else if (path.startsWith("/admin/tiers/")) {
      force(path.substring("/admin/tiers/".length()), request, response, callback);
    } else if (path.equals("/admin/route")) {
      route(request, response, callback);
    } else {
      jobs.handle(path, request, response, callback);
    }
  }

  /** The method {@code path} takes, or null when no admin endpoint has it. */
  private String allowed(String path) {
    if (path.equals("/admin/tiers")) {
      return "GET";
    }
    if (path.startsWith("/admin/tiers/")) {
      return "POST";
    }
    if (path.equals("/admin/route")) {
      return routing == null ? null : "GET";
    }
    return jobs == null ? null : JobsAdmin.allowed(path);
  }

  private void route(Request request, Response response, Callback callback) {
    Fields query = Request.extractQueryParameters(request);
    String name = query.getValue("alias");
    AliasChain alias = name == null ? null : aliases.configured(name).orElse(null);
    if (alias == null) {
      LeveeErrors.send(response, callback, name == null
          ? ApiError.invalidRequest("alias is required: /admin/route?alias=<configured alias>&task=code")
              .because(RefusalReason.BAD_PARAMETER)
          : ApiError.notFound("unknown alias '" + ClientText.shown(name) + "'").because(RefusalReason.NOT_FOUND));
      return;
    }
    long inputTokens;
    try {
      String tokens = query.getValue("input-tokens");
      inputTokens = tokens == null ? DEFAULT_INPUT_TOKENS : Long.parseLong(tokens.trim());
      if (inputTokens < 0) throw new NumberFormatException();
    } catch (NumberFormatException e) {
      LeveeErrors.send(response, callback, ApiError.invalidRequest("input-tokens must be a whole number >= 0")
          .because(RefusalReason.BAD_PARAMETER));
      return;
    }
    RouteDefaults defaults = alias.routed() ? alias.routing() : RouteDefaults.DEFAULT;
    switch (RouteHints.read(header -> query.getValue(header.substring("x-levee-".length())), defaults, inputTokens)) {
      case RouteHints.Invalid invalid -> LeveeErrors.send(response, callback, invalid.error());
      case RouteHints.Valid valid -> send(response, callback, 200,
          RouteReport.of(alias, valid.request(), routing.decide(alias, valid.request())));
    }
  }

  private void force(String feature, Request request, Response response, Callback callback) {
    if (!tiers.knows(feature)) {
      LeveeErrors.send(response, callback, ApiError.notFound("unknown feature '" + ClientText.shown(feature) + "'")
          .because(RefusalReason.NOT_FOUND));
      return;
    }
    byte[] bytes;
    try (InputStream in = Content.Source.asInputStream(request)) {
      bytes = in.readNBytes(64 * 1024);
    } catch (IOException e) {
      bytes = null;
    }
    JsonNode body = bytes == null ? null : Json.tryParse(bytes);
    String problem = applyForce(feature, body);
    if (problem != null) {
      RefusalReason why = bytes == null ? RefusalReason.BODY_UNREADABLE
          : bytes.length == 0 ? RefusalReason.BODY_EMPTY
          : body == null ? RefusalReason.BODY_NOT_JSON
          : body.isObject() ? RefusalReason.BAD_FIELD : RefusalReason.BODY_NOT_OBJECT;
      LeveeErrors.send(response, callback, ApiError.invalidRequest(problem
          + "; expected {\"tier\": \"T0\"|\"T1\"|\"T2\"|\"T3\"|\"auto\", \"for\": \"10m\"}").because(why));
      return;
    }
    ObjectNode ok = Json.MAPPER.createObjectNode();
    ok.set("features", tiers.status());
    send(response, callback, 200, ok);
  }

  /** Forces (or releases) {@code feature}'s tier as {@code body} asks; returns what is wrong with it, or null. */
  private String applyForce(String feature, JsonNode body) {
    if (body == null || !body.isObject()) {
      return "the body must be a JSON object";
    }
    for (String field : (Iterable<String>) body::fieldNames) {
      if (!field.equals("tier") && !field.equals("for")) {
        return "unknown field '" + ClientText.shown(field) + "' (the fields are tier and for)";
      }
    }
    if (!body.has("tier")) {
      return "tier is missing";
    }
    String tier = body.path("tier").asText("").toUpperCase(Locale.ROOT);
    if (tier.equals("AUTO")) {
      tiers.clearForce(feature);
      return null;
    }
    if (!tier.matches("T[0-3]")) {
      return "tier must be T0, T1, T2, T3 or auto, was " + body.path("tier");
    }
    JsonNode forText = body.path("for");
    if (!forText.isMissingNode() && !forText.isTextual()) {
      return "for must be a duration string such as \"10m\", was " + forText;
    }
    Duration duration;
    try {
      duration = Units.duration(forText.asText("10m"));
    } catch (IllegalArgumentException e) {
      return "for: " + e.getMessage();
    }
    if (!duration.isPositive() || duration.compareTo(MAX_FORCE) > 0) {
      return "for must be more than 0 and at most 24h (a lasting change belongs in the config), was " + forText.asText("10m");
    }
    tiers.force(feature, Tier.valueOf(tier), duration);
    return null;
  }

  private static void send(Response response, Callback callback, int status, JsonNode body) {
    ServerIo.json(response, callback, status, Json.bytes(body));
  }
}
