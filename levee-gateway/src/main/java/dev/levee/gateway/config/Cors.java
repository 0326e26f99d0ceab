package dev.levee.gateway.config;

import java.net.URI;
import java.util.List;
import java.util.Locale;

/**
 * Which web pages' origins may call the gateway from a browser ({@code server.cors}): {@code "*"}
 * (any origin), a list of origins ({@code [https://app.example.com, http://localhost:5173]}), or
 * {@code off}. The Anthropic API answers a browser's call (one that sends {@code
 * anthropic-dangerous-direct-browser-access: true}, as the TypeScript SDK does with {@code
 * dangerouslyAllowBrowser}) with {@code access-control-allow-origin: *}; Levee mirrors that by
 * default, except when an upstream has its own {@code api-key} ({@link GatewayConfig#cors()}): then
 * any page a user opens could spend that key through the gateway, so browsers are refused unless
 * origins are listed.
 *
 * @param enabled whether browsers are answered at all (false: {@code OPTIONS} gets 405 and no
 *     {@code access-control-*} header is sent)
 * @param origins the allowed origins, lower case, as {@code scheme://host[:port]}; {@code ["*"]} for any
 */
public record Cors(boolean enabled, List<String> origins) {

  /** Any origin, as the Anthropic API. */
  public static final Cors ANY = new Cors(true, List.of("*"));

  /** No browser access. */
  public static final Cors OFF = new Cors(false, List.of());

  public Cors {
    origins = origins.stream().map(o -> o.trim().toLowerCase(Locale.ROOT)).toList();
    for (String origin : origins) {
      if (!origin.equals("*") && !isOrigin(origin)) {
        throw new IllegalArgumentException("cors: '" + origin + "' is not an origin: write scheme://host[:port] with no "
            + "path, e.g. https://app.example.com, or \"*\" for any, or off");
      }
    }
  }

  /** Whether any origin may call. */
  public boolean anyOrigin() {
    return enabled && origins.contains("*");
  }

  /** Whether a page of {@code origin} (the request's {@code Origin} header) may call. */
  public boolean allows(String origin) {
    return enabled && origin != null && (anyOrigin() || origins.contains(origin.toLowerCase(Locale.ROOT)));
  }

  private static boolean isOrigin(String text) {
    try {
      URI uri = new URI(text);
      return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
          && uri.getRawPath().isEmpty() && uri.getRawQuery() == null && uri.getRawFragment() == null
          && uri.getRawUserInfo() == null;
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }
}
