package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.server.ServerIo;
import dev.levee.anthropic.server.TenantKey;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.route.RouteRequest;
import dev.levee.gateway.AliasChain;
import dev.levee.gateway.Aliases;
import dev.levee.gateway.cache.CacheKey;
import dev.levee.gateway.cache.HeaderValues;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.route.InputTokens;
import dev.levee.gateway.route.RouteHints;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;

/**
 * Stage 1, ingress: reads and checks a client request before anything is sent upstream, then
 * says what it is — the alias its {@code model} resolves to, the feature and the tenant it
 * belongs to. A client request whose {@code content-type} is not JSON gets 400 {@code
 * invalid_request_error} ({@link JsonContentType}), and so does a compressed body ({@link
 * IdentityContentEncoding}); a body over the size limit gets 413 {@code
 * request_too_large}; a body that is not
 * a JSON object with a string {@code model} gets 400 {@code invalid_request_error}; so does a
 * {@code model} that is no alias and not a plausible model id, or an {@code x-levee-tenant} that
 * is not a plain name ({@link ClientNames}: they become keys and headers), and a request to an
 * alias routed by score whose {@code x-levee-task}, {@code x-levee-latency-budget} or {@code
 * x-levee-prefer} is not an allowed value ({@link RouteHints}). None is forwarded. Thread-safe.
 */
final class Ingress {

  /** A request refused at the door, with the error to answer. */
  static final class Refused extends Exception {
    private final transient ApiError error;

    Refused(ApiError error) {
      super(error.message());
      this.error = error;
    }

    ApiError error() {
      return error;
    }
  }

  private final long maxBody;
  private final Aliases aliases;
  private final GatewayConfig config;
  private final Set<String> features;

  /**
   * @param features the features whose name a request may carry in {@code x-levee-feature}
   *     (any other name, or none, is {@code default})
   */
  Ingress(GatewayConfig config, Aliases aliases, Set<String> features) {
    this.maxBody = config.server().maxBody();
    this.config = config;
    this.aliases = aliases;
    this.features = Set.copyOf(features);
  }

  /**
   * Reads a client request whose head passed {@link #refusalOnHead} (the gateway's dispatcher asks
   * it of every request before its body is read: it is not asked twice).
   *
   * @param id Levee's id for this request ({@link RequestIds})
   * @throws Refused when the body is too large, unreadable or not a valid Messages request
   */
  InboundRequest read(Request request, String id) throws Refused {
    return inbound(id, request.getHttpURI().getPath(), request.getHttpURI().getQuery(), ServerIo.headers(request),
        readBody(request), TenantKey.hasher(request));
  }

  /**
   * The refusal of a client request that its headers alone decide — a {@code content-type} that is
   * not JSON ({@link JsonContentType}), a compressed body ({@link IdentityContentEncoding}) — or
   * empty. The gateway's dispatcher asks it of every Messages request before the server reads the
   * body, so such a request is refused without {@code 100 Continue}, and before {@link #read}.
   */
  static Optional<ApiError> refusalOnHead(HttpFields headers) {
    return JsonContentType.check(headers)
        .or(() -> IdentityContentEncoding.check(headers.getValuesList(HttpHeader.CONTENT_ENCODING)));
  }

  /**
   * A request that did not come through a client connection — a queued job run again by a worker
   * — checked and resolved as {@link #read} does.
   *
   * @param headers the headers to send it with (the job's, and the client's key when it was kept)
   * @throws Refused when the body is not a valid Messages request
   */
  InboundRequest replay(String id, String path, String query, Map<String, List<String>> headers, byte[] bytes)
      throws Refused {
    return inbound(id, path, query, headers, bytes, TenantKey::keyHash);
  }

  /** @param keyHash hashes the API key for the tenant ({@link TenantKey#hasher}: the door hashed it already) */
  private InboundRequest inbound(String id, String path, String query, Map<String, List<String>> headers,
      byte[] bytes, UnaryOperator<String> keyHash) throws Refused {
    MessagesRequest body = parse(bytes);
    String named = HeaderValues.first(headers, "x-levee-feature");
    String feature = named != null && features.contains(named) ? named : Feature.DEFAULT_NAME;
    OriginalRequest original = new OriginalRequest(path, query, headers, body);
    AliasChain alias = aliases.resolve(body.model());
    refuseIf(alias.configured() ? Optional.empty() : ClientNames.model(body.model()));
    refuseIf(ClientNames.tenant(HeaderValues.first(headers, "x-levee-tenant")));
    return new InboundRequest(id, original, alias, feature, config.feature(feature), CacheKey.tenantOf(headers, keyHash),
        route(alias, original, headers, bytes.length));
  }

  private static void refuseIf(Optional<ApiError> refusal) throws Refused {
    if (refusal.isPresent()) {
      throw new Refused(refusal.get());
    }
  }

  /** What the scoring router needs to know, for a routed alias's answer; null otherwise. */
  private static RouteRequest route(AliasChain alias, OriginalRequest original, Map<String, List<String>> headers,
      int bodyBytes) throws Refused {
    if (!alias.routed() || !original.path().equals("/v1/messages")) {
      return null;
    }
    return switch (RouteHints.read(name -> HeaderValues.first(headers, name), alias.routing(),
        InputTokens.estimate(bodyBytes))) {
      case RouteHints.Valid valid -> valid.request();
      case RouteHints.Invalid invalid -> throw new Refused(invalid.error());
    };
  }

  /** The body, into an array of exactly its {@code content-length} when declared (else read up to the limit). */
  private byte[] readBody(Request request) throws Refused {
    long declared = request.getLength(); // -1: not declared (chunked)
    if (declared > maxBody) {
      throw new Refused(tooLarge());
    }
    byte[] body;
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (declared >= 0) {
        body = new byte[(int) declared];
        int read = in.readNBytes(body, 0, body.length);
        return read == body.length ? body : Arrays.copyOf(body, read);
      }
      body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, maxBody + 1));
    } catch (IOException e) {
      throw new Refused(ApiError.invalidRequest("could not read the request body: " + e.getMessage())
          .because(RefusalReason.BODY_UNREADABLE));
    }
    if (body.length > maxBody) {
      throw new Refused(tooLarge());
    }
    return body;
  }

  private static MessagesRequest parse(byte[] body) throws Refused {
    try {
      return MessagesRequest.parse(body);
    } catch (MessagesRequest.InvalidRequestException e) {
      throw new Refused(ApiError.invalidRequest(e.getMessage()).because(e.reason()));
    }
  }

  private ApiError tooLarge() {
    return ApiError.requestTooLarge("request body exceeds the gateway's limit of " + sizeText(maxBody))
        .because(RefusalReason.BODY_TOO_LARGE);
  }

  /** {@code 32 MiB (33554432 bytes)}; a size that is not a whole number of KiB in bytes only. */
  static String sizeText(long bytes) {
    String unit = bytes >= 1 << 20 && bytes % (1 << 20) == 0 ? bytes / (1 << 20) + " MiB"
        : bytes >= 1 << 10 && bytes % (1 << 10) == 0 ? bytes / (1 << 10) + " KiB" : null;
    return unit == null ? bytes + " bytes" : unit + " (" + bytes + " bytes)";
  }
}
