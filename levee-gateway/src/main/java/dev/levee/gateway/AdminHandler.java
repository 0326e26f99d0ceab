package dev.levee.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.Units;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.core.tier.Tier;
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

/**
 * {@code GET /admin/tiers} (every feature's tier) and {@code POST /admin/tiers/{feature}} with
 * {@code {"tier":"T2","for":"10m"}} to force a tier for a drill (it expires on its own; {@code
 * "tier":"auto"} lifts it). Both need {@code authorization: Bearer <admin.token>}; without a
 * configured token they answer 404.
 */
final class AdminHandler {

  private final byte[] token;
  private final TierBoard tiers;

  AdminHandler(String token, TierBoard tiers) {
    this.token = token.getBytes(StandardCharsets.UTF_8);
    this.tiers = tiers;
  }

  void handle(String path, Request request, Response response, Callback callback) {
    if (token.length == 0) {
      send(response, callback, 404, ApiError.notFound("admin endpoints are off (set admin.token)").toJson(null));
      return;
    }
    String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    byte[] given = auth != null && auth.startsWith("Bearer ") ? auth.substring(7).getBytes(StandardCharsets.UTF_8) : new byte[0];
    if (!MessageDigest.isEqual(token, given)) {
      send(response, callback, 401, new ApiError(401, "authentication_error", "a valid admin token is required").toJson(null));
      return;
    }
    if (path.equals("/admin/tiers") && request.getMethod().equals("GET")) {
      ObjectNode body = Json.MAPPER.createObjectNode();
      body.set("features", tiers.status());
      send(response, callback, 200, body);
    } else if (path.startsWith("/admin/tiers/") && request.getMethod().equals("POST")) {
      force(path.substring("/admin/tiers/".length()), request, response, callback);
    } else {
      send(response, callback, 404, ApiError.notFound("no admin endpoint " + request.getMethod() + " " + path).toJson(null));
    }
  }

  private void force(String feature, Request request, Response response, Callback callback) {
    if (!tiers.knows(feature)) {
      send(response, callback, 404, ApiError.notFound("unknown feature '" + feature + "'").toJson(null));
      return;
    }
    JsonNode body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      body = Json.tryParse(in.readNBytes(64 * 1024));
    } catch (IOException e) {
      body = null;
    }
    String tier = body == null ? "" : body.path("tier").asText("").toUpperCase(Locale.ROOT);
    try {
      if (tier.equals("AUTO")) {
        tiers.controller(feature).clearForce();
      } else {
        Duration duration = Units.duration(body.path("for").asText("10m"));
        tiers.controller(feature).force(Tier.valueOf(tier), duration);
      }
    } catch (IllegalArgumentException | NullPointerException e) {
      send(response, callback, 400, ApiError.invalidRequest(
          "expected {\"tier\": \"T0\"|\"T1\"|\"T2\"|\"T3\"|\"auto\", \"for\": \"10m\"}").toJson(null));
      return;
    }
    ObjectNode ok = Json.MAPPER.createObjectNode();
    ok.set("features", tiers.status());
    send(response, callback, 200, ok);
  }

  private static void send(Response response, Callback callback, int status, JsonNode body) {
    ServerIo.json(response, callback, status, Json.bytes(body));
  }
}
