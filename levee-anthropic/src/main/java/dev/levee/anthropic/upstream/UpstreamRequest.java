package dev.levee.anthropic.upstream;

import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One call to send upstream.
 *
 * @param uri the full URI, query string included
 * @param method {@code POST} or {@code GET}
 * @param headers lower-case names to values, already filtered by {@link Headers#toUpstream}
 * @param body the body bytes (empty for GET)
 */
public record UpstreamRequest(URI uri, String method, Map<String, List<String>> headers, byte[] body) {

  public UpstreamRequest {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(method, "method");
    headers = Map.copyOf(headers);
    body = body == null ? new byte[0] : body;
  }

  @Override
  public String toString() {
    return method + " " + uri + " (" + body.length + " bytes)"; // never the headers: they hold the key
  }
}
