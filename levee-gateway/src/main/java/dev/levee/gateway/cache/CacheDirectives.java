package dev.levee.gateway.cache;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a client's request says about caching (RFC 9111 §5.2.1 request directives).
 *
 * <ul>
 *   <li>{@code cache-control: no-store}: nothing from this exchange is stored, and nothing stored
 *       is served (the client opted out of caching altogether).
 *   <li>{@code cache-control: no-cache}, {@code max-age=0}, or {@code pragma: no-cache}: a fresh
 *       answer is wanted, so nothing stored is served — not even a stale entry when every target
 *       fails (Levee's reading: the client asked for fresh, an error is the honest answer); the
 *       fresh answer may be stored.
 * </ul>
 *
 * Directive names are case-insensitive; repeated and comma-separated headers are all read;
 * unknown directives are ignored.
 *
 * @param noStore the request carries {@code no-store}
 * @param noCache the request carries {@code no-cache}, {@code max-age=0} or {@code pragma: no-cache}
 */
public record CacheDirectives(boolean noStore, boolean noCache) {

  /** A request that says nothing about caching. */
  public static final CacheDirectives NONE = new CacheDirectives(false, false);

  /** Reads {@code cache-control} and {@code pragma} from request headers (names in any case). */
  public static CacheDirectives of(Map<String, List<String>> headers) {
    boolean noStore = false;
    boolean noCache = false;
    for (String token : HeaderValues.tokens(headers, "cache-control")) {
      String directive = token.toLowerCase(Locale.ROOT).replace(" ", "");
      switch (directive) {
        case "no-store" -> noStore = true;
        case "no-cache", "max-age=0", "max-age=\"0\"" -> noCache = true;
        default -> { }
      }
    }
    for (String token : HeaderValues.tokens(headers, "pragma")) {
      if (token.equalsIgnoreCase("no-cache")) {
        noCache = true;
      }
    }
    return new CacheDirectives(noStore, noCache);
  }

  /** Whether a stored answer, fresh or stale, may answer this request. */
  public boolean mayServe() {
    return !noStore && !noCache;
  }

  /** Whether the answer to this request may be stored. */
  public boolean mayStore() {
    return !noStore;
  }
}
