package dev.levee.anthropic.server;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.UnaryOperator;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.server.Request;

/**
 * The tenant a request's concurrency counts against: {@code key:} and the SHA-256 of its API key
 * ({@code x-api-key}, else the bearer token of {@code authorization}), the same hash as the key
 * part of the gateway's cache tenant ({@code CacheKey.tenantOf}); {@code anonymous} without a
 * key. Never the key itself. The client-chosen {@code x-levee-tenant} header does not count here:
 * a client could otherwise escape its limit by inventing names.
 *
 * <p>The hash is computed once per request: {@link #of(Request)} remembers it on the request, and
 * later stages take it from {@link #hasher(Request)} instead of hashing the key again.
 */
public final class TenantKey {

  private static final HexFormat HEX = HexFormat.of();
  private static final MessageDigest SHA256 = prototype(); // never updated: each use clones it

  /** The request attribute holding the key hashed by {@link #of(Request)}. */
  private static final String ATTRIBUTE = TenantKey.class.getName();

  private TenantKey() {}

  /** The tenant of a request with these headers. */
  public static String of(HttpFields headers) {
    String key = apiKey(headers);
    return key == null ? "anonymous" : keyHash(key);
  }

  /**
   * The tenant of {@code request}, as {@link #of(HttpFields)}; the hash is remembered on the
   * request for {@link #hasher(Request)}.
   */
  public static String of(Request request) {
    String key = apiKey(request.getHeaders());
    if (key == null) {
      return "anonymous";
    }
    Hashed hashed = new Hashed(key, keyHash(key));
    request.setAttribute(ATTRIBUTE, hashed);
    return hashed.hash;
  }

  /**
   * {@link #keyHash} for a later stage of {@code request}: the hash {@link #of(Request)} computed,
   * when asked for the same key; any other key is hashed anew.
   */
  public static UnaryOperator<String> hasher(Request request) {
    return request.getAttribute(ATTRIBUTE) instanceof Hashed hashed ? hashed : TenantKey::keyHash;
  }

  /** The API key: {@code x-api-key}, else the bearer token of {@code authorization}; null when none or empty. */
  private static String apiKey(HttpFields headers) {
    String key = headers.get("x-api-key");
    if (key == null) {
      String authorization = headers.get("authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        key = authorization.substring(7).strip();
      }
    }
    return key == null || key.isEmpty() ? null : key;
  }

  /** {@code key:} and the lower-case hex SHA-256 of {@code apiKey}'s UTF-8 bytes: never the key itself. */
  public static String keyHash(String apiKey) {
    return "key:" + HEX.formatHex(sha256().digest(apiKey.getBytes(StandardCharsets.UTF_8)));
  }

  /** A fresh SHA-256 digest (a clone of one prototype: {@code getInstance} looks the provider up each time). */
  public static MessageDigest sha256() {
    try {
      return (MessageDigest) SHA256.clone();
    } catch (CloneNotSupportedException e) {
      return prototype(); // a provider whose digest cannot be cloned: the slower way
    }
  }

  private static MessageDigest prototype() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** A key and its {@link #keyHash}; its string form never shows the key. */
  private static final class Hashed implements UnaryOperator<String> {
    private final String key;
    private final String hash;

    Hashed(String key, String hash) {
      this.key = key;
      this.hash = hash;
    }

    @Override
    public String apply(String apiKey) {
      return key.equals(apiKey) ? hash : keyHash(apiKey);
    }

    @Override
    public String toString() {
      return hash;
    }
  }
}
