package dev.levee.gateway.cache;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.server.TenantKey;
import java.io.IOException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

/**
 * The exact-match cache key of a Messages request: a SHA-256 over everything that can change the
 * answer, in a canonical form, plus the tenant and model it belongs to.
 *
 * <p><b>What is hashed.</b> The tenant, the model or alias the client asked for, the {@code
 * anthropic-beta} tokens (sorted, deduplicated: their order does not matter) and {@code
 * anthropic-version}, and every top-level body field except three that cannot change the
 * answer: {@code model} (hashed on its own, so the caller decides alias or target), {@code
 * stream} (a stream and a JSON answer are the same message) and {@code metadata} (only a
 * {@code user_id} for abuse tracking). So {@code system}, {@code messages}, {@code tools}, {@code
 * tool_choice}, {@code temperature}, {@code top_p}, {@code top_k}, {@code stop_sequences},
 * {@code max_tokens} and {@code thinking} all count, and so does any field Levee does not know
 * yet: an unknown field may well change the answer, and a miss costs less than a wrong answer.
 *
 * <p><b>Canonical JSON.</b> Object keys are sorted (key order does not matter), array order is
 * kept (it does), numbers are compared by value ({@code 0.7}, {@code 0.70} and {@code 7E-1} are
 * one number; {@code 1} and {@code 1.0} too), strings are kept exactly. Whitespace never
 * matters.
 *
 * <p><b>Tenant</b> ({@link #tenantOf}): {@code key:} and the SHA-256 of the client's API key
 * ({@code x-api-key}, or the bearer token of {@code authorization}) — never the key itself —
 * and/or {@code tenant:} and the {@code x-levee-tenant} header. When both are present both
 * count, so a client can split its own partition but never step into another key's. With
 * neither, every client shares the {@code anonymous} partition (a gateway holding the only
 * upstream key and no tenant header serves one tenant).
 *
 * @param tenant the tenant partition (hashed key and/or named tenant, never a clear key)
 * @param model the model or alias the key was made for
 * @param digest lower-case hex SHA-256 of the canonical form, tenant and model included
 */
public record CacheKey(String tenant, String model, String digest) {

  private static final HexFormat HEX = HexFormat.of();

  public CacheKey {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(digest, "digest");
  }

  /**
   * The key of a parsed request for the model it names.
   *
   * @param headers the client's request headers, names in any case
   * @throws IllegalArgumentException when the body is beyond the JSON limits or not a JSON object
   */
  public static CacheKey of(MessagesRequest request, Map<String, List<String>> headers) {
    return of(request, tenantOf(headers), request.model(), headers);
  }

  /**
   * The key of a parsed request for {@code model}, its tenant known already: one streaming pass
   * over the body's bytes, no tree. The same digest as {@link #of(JsonNode, String, String, Map)}
   * of the parsed body.
   *
   * @param tenant {@link #tenantOf} of {@code headers}
   * @param model the alias, or a concrete target at the caller's choice
   * @throws IllegalArgumentException when the body is beyond the JSON limits (nested deeper than
   *     {@link Json#MAX_NESTING_DEPTH} with the key's own wrapping) or not a JSON object
   */
  public static CacheKey of(MessagesRequest request, String tenant, String model, Map<String, List<String>> headers) {
    byte[] body = request.body();
    return digest(tenant, model, headers, body.length + 256, out -> CanonicalJson.writeBody(body, out));
  }

  /**
   * The key of a request body for {@code model} (the alias, or a concrete target at the
   * caller's choice).
   *
   * @param body the request body, a JSON object
   * @throws IllegalArgumentException when {@code body} is not a JSON object
   */
  public static CacheKey of(JsonNode body, String model, Map<String, List<String>> headers) {
    return of(body, tenantOf(headers), model, headers);
  }

  /**
   * As {@link #of(JsonNode, String, Map)}, for a request whose tenant is known already.
   *
   * @param tenant {@link #tenantOf} of {@code headers}
   */
  public static CacheKey of(JsonNode body, String tenant, String model, Map<String, List<String>> headers) {
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("request body must be a JSON object");
    }
    return digest(tenant, model, headers, 512, out -> writeCanonical(body, out, true));
  }

  private interface BodyWriter {
    void write(JsonGenerator out) throws IOException;
  }

  /** The SHA-256 of the canonical form: {@code {"v","tenant","model","anthropic-beta","anthropic-version","body"}}. */
  private static CacheKey digest(String tenant, String model, Map<String, List<String>> headers, int capacity,
      BodyWriter body) {
    Objects.requireNonNull(tenant, "tenant");
    Objects.requireNonNull(model, "model");
    CanonicalJson.Buffer bytes = new CanonicalJson.Buffer(capacity);
    try (JsonGenerator out = Json.MAPPER.getFactory().createGenerator(bytes)) {
      out.writeStartObject();
      out.writeStringField("v", "1");
      out.writeStringField("tenant", tenant);
      out.writeStringField("model", model);
      out.writeArrayFieldStart("anthropic-beta");
      List<String> betas = HeaderValues.tokens(headers, "anthropic-beta");
      for (String beta : betas.size() < 2 ? betas : new TreeSet<>(betas)) {
        out.writeString(beta);
      }
      out.writeEndArray();
      String version = HeaderValues.first(headers, "anthropic-version");
      if (version != null) {
        out.writeStringField("anthropic-version", version);
      }
      out.writeFieldName("body");
      body.write(out);
      out.writeEndObject();
    } catch (IOException e) { // nothing is written anywhere but memory: the body is not one object within the limits
      throw new IllegalArgumentException("request body is not a JSON object within the JSON limits", e);
    }
    MessageDigest sha = TenantKey.sha256();
    sha.update(bytes.array(), 0, bytes.size());
    return new CacheKey(tenant, model, HEX.formatHex(sha.digest()));
  }

  /**
   * The tenant partition of a request: see the class comment. Never contains an API key.
   *
   * @param headers the client's request headers, names in any case
   */
  public static String tenantOf(Map<String, List<String>> headers) {
    return tenantOf(headers, TenantKey::keyHash);
  }

  /**
   * As {@link #tenantOf(Map)}, the key hashed by {@code keyHash} ({@link TenantKey#keyHash}, or
   * one that knows it already: {@link TenantKey#hasher}).
   */
  public static String tenantOf(Map<String, List<String>> headers, UnaryOperator<String> keyHash) {
    String key = HeaderValues.first(headers, "x-api-key");
    if (key == null) {
      String authorization = HeaderValues.first(headers, "authorization");
      if (authorization != null && authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
        key = authorization.substring(7).strip();
      }
    }
    String named = HeaderValues.first(headers, "x-levee-tenant");
    String hashed = key == null || key.isEmpty() ? null : keyHash.apply(key);
    if (named == null) {
      return hashed == null ? "anonymous" : hashed;
    }
    return hashed == null ? "tenant:" + named : hashed + "/tenant:" + named;
  }

  private static void writeCanonical(JsonNode node, JsonGenerator out, boolean top) throws IOException {
    switch (node.getNodeType()) {
      case OBJECT -> {
        String[] names = new String[node.size()];
        int n = 0;
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
          String name = it.next();
          if (!(top && CanonicalJson.IGNORED_FIELDS.contains(name))) {
            names[n++] = name;
          }
        }
        Arrays.sort(names, 0, n); // names are unique in a parsed object
        out.writeStartObject();
        for (int i = 0; i < n; i++) {
          String name = names[i];
          out.writeFieldName(name);
          writeCanonical(node.get(name), out, false);
        }
        out.writeEndObject();
      }
      case ARRAY -> {
        out.writeStartArray();
        for (JsonNode element : node) {
          writeCanonical(element, out, false);
        }
        out.writeEndArray();
      }
      case NUMBER -> out.writeNumber(node.canConvertToExactIntegral() && node.canConvertToLong()
          ? CanonicalJson.integer(node.longValue()) : CanonicalJson.number(node.decimalValue()));
      case STRING -> out.writeString(node.textValue());
      case BOOLEAN -> out.writeBoolean(node.booleanValue());
      case NULL, MISSING -> out.writeNull();
      default -> out.writeString(node.asText()); // binary and POJO nodes do not come from parsing
    }
  }

  /** Equal when all three components are; the digest, which differs most often, is compared first. */
  @Override
  public boolean equals(Object o) {
    return o instanceof CacheKey other && digest.equals(other.digest) && tenant.equals(other.tenant)
        && model.equals(other.model);
  }

  /**
   * The digest's hash alone: the digest covers the tenant and the model already, so hashing them
   * too (a record's default, on strings made anew for each request) spreads keys no better.
   */
  @Override
  public int hashCode() {
    return digest.hashCode();
  }

  @Override
  public String toString() {
    return "CacheKey[" + tenant.substring(0, Math.min(tenant.length(), 16)) + "…, " + model + ", "
        + digest.substring(0, 12) + "…]";
  }
}
