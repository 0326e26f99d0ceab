package dev.levee.anthropic.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import org.eclipse.jetty.http.HttpFields;

/**
 * The tenant a request's concurrency counts against: {@code key:} and the SHA-256 of its API key
 * ({@code x-api-key}, else the bearer token of {@code authorization}), the same hash as the key
 * part of the gateway's cache tenant ({@code CacheKey.tenantOf}); {@code anonymous} without a
 * key. Never the key itself. The client-chosen {@code x-levee-tenant} header does not count here:
 * a client could otherwise escape its limit by inventing names.
 */
public final class TenantKey {

  private static final HexFormat HEX = HexFormat.of();

  private TenantKey() {}

  /** The tenant of a request with these headers. */
  public static String of(HttpFields headers) {
    String key = headers.get("x-api-key");
    if (key == null) {
      String authorization = headers.get("authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        key = authorization.substring(7).strip();
      }
    }
    if (key == null || key.isEmpty()) {
      return "anonymous";
    }
    try {
      return "key:" + HEX.formatHex(MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
