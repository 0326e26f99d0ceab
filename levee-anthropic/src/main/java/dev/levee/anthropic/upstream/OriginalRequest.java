package dev.levee.anthropic.upstream;

import dev.levee.anthropic.message.MessagesRequest;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * A client's request as it arrived, from which each upstream call is made.
 *
 * @param path e.g. {@code /v1/messages}
 * @param query the raw query string without {@code ?} (e.g. {@code beta=true}), or null
 * @param headers the client's headers (any case), filtered per call by {@link Headers#toUpstream}
 * @param body the parsed body
 */
public record OriginalRequest(String path, String query, Map<String, List<String>> headers, MessagesRequest body) {

  /** The upstream call carrying {@code body} to {@code endpoint}: same path, query and headers. */
  public UpstreamRequest to(Endpoint endpoint, byte[] body) {
    URI uri = URI.create(endpoint.baseUrl() + path + (query == null ? "" : "?" + query));
    return new UpstreamRequest(uri, "POST", Headers.toUpstream(headers, endpoint.apiKey()), body);
  }

  @Override
  public String toString() {
    return "OriginalRequest[" + path + ", " + body + "]"; // never the headers: they hold the key
  }
}
