package dev.levee.anthropic.upstream;

import dev.levee.anthropic.server.LowerCaseHeaders;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which headers cross the gateway, in each direction.
 *
 * <p>Everything passes (including {@code anthropic-version}, {@code anthropic-beta} and headers
 * Levee has never heard of) except: hop-by-hop headers (RFC 9110 §7.6.1: the standard set, and
 * every header named in the message's own {@code Connection} header), headers the HTTP
 * stack computes itself ({@code host}, {@code content-length}), {@code accept-encoding} (Levee
 * parses streams, so it asks for identity), Levee's own {@code x-levee-*} request headers, and —
 * when the upstream has its own key — the client's credentials.
 */
public final class Headers {

  private static final Set<String> HOP_BY_HOP = Set.of(
      "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization",
      "te", "trailer", "transfer-encoding", "upgrade", "http2-settings");

  private static final Set<String> NOT_FORWARDED = Set.of(
      "host", "content-length", "expect", "accept-encoding");

  private static final Set<String> NOT_RETURNED = Set.of("content-length", "content-encoding", "date", "server");

  private Headers() {}

  /**
   * The headers to send upstream.
   *
   * @param inbound the client's headers, names in any case
   * @param apiKey the upstream's own key; null or empty to forward the client's credentials
   * @return lower-case names to values, in the client's order
   */
  public static Map<String, List<String>> toUpstream(Map<String, List<String>> inbound, String apiKey) {
    boolean ownKey = apiKey != null && !apiKey.isEmpty();
    Set<String> connectionOptions = connectionOptions(inbound);
    Map<String, List<String>> out = new LinkedHashMap<>();
    inbound.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (HOP_BY_HOP.contains(lower) || connectionOptions.contains(lower) || NOT_FORWARDED.contains(lower)
          || lower.startsWith("x-levee-")) {
        return;
      }
      if (ownKey && (lower.equals("x-api-key") || lower.equals("authorization"))) {
        return;
      }
      List<String> had = out.putIfAbsent(lower, values); // most names come once: their list as it is
      if (had != null) {
        List<String> both = new ArrayList<>(had);
        both.addAll(values);
        out.put(lower, both);
      }
    });
    if (ownKey) {
      out.put("x-api-key", List.of(apiKey));
    }
    return out;
  }

  /**
   * The upstream response headers to return to the client (lower-case names): a new map, the
   * caller's to change. The upstream's CORS headers ({@code access-control-*}) are not returned: they
   * answer the origin the upstream saw, and the gateway answers its own browsers (a relayed {@code
   * access-control-allow-origin: *} next to the gateway's own would be two values, which browsers
   * refuse, or would open an origin the gateway's list does not).
   */
  public static Map<String, List<String>> toClient(Map<String, List<String>> upstream) {
    Set<String> connectionOptions = connectionOptions(upstream);
    Map<String, List<String>> out = new LinkedHashMap<>();
    upstream.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (!lower.startsWith(":") && !HOP_BY_HOP.contains(lower) && !connectionOptions.contains(lower)
          && !NOT_RETURNED.contains(lower) && !lower.startsWith("access-control-")) {
        out.put(lower, values);
      }
    });
    return out;
  }

  /**
   * The header names a message's {@code Connection} header lists (RFC 9110 §7.6.1: "a proxy or
   * gateway MUST ... remove any header or trailer field(s) named in the Connection header field"),
   * lower-case; every {@code Connection} field and comma-separated token counts.
   */
  static Set<String> connectionOptions(Map<String, List<String>> headers) {
    Set<String> named = null; // most messages have no Connection header: nothing allocated
    for (String value : LowerCaseHeaders.values(headers, "connection")) {
      for (String token : value.split(",")) {
        String option = token.strip().toLowerCase(Locale.ROOT);
        if (!option.isEmpty()) {
          named = named == null ? new HashSet<>() : named;
          named.add(option);
        }
      }
    }
    return named == null ? Set.of() : named;
  }
}
