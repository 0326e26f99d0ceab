package dev.levee.anthropic.upstream;

import dev.levee.anthropic.message.MessagesRequest;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A client's request as it arrived, from which each upstream call is made, with the edits a
 * degradation tier imposes (a lower {@code max_tokens}, fields removed); none by default.
 *
 * @param path e.g. {@code /v1/messages}
 * @param query the raw query string without {@code ?} (e.g. {@code beta=true}), or null
 * @param headers the client's headers (any case), filtered per call by {@link Headers#toUpstream}
 * @param body the parsed body
 * @param maxTokensCap the most {@code max_tokens} a call may ask for, or 0 for no cap
 * @param drop top-level body fields removed from every call (e.g. {@code thinking})
 */
public record OriginalRequest(String path, String query, Map<String, List<String>> headers, MessagesRequest body,
    long maxTokensCap, Set<String> drop) {

  /** The URIs of recent calls: a few endpoints times a few paths, parsed once each. */
  private static final Map<String, URI> URIS = new ConcurrentHashMap<>();

  private static final int MAX_URIS = 256; // queries come from clients: the table stays small whatever they send

  public OriginalRequest {
    drop = Set.copyOf(drop);
  }

  /** A request as it arrived, without tier edits. */
  public OriginalRequest(String path, String query, Map<String, List<String>> headers, MessagesRequest body) {
    this(path, query, headers, body, 0, Set.of());
  }

  /** This request with a tier's edits. */
  public OriginalRequest shaped(long cap, Set<String> dropped) {
    return new OriginalRequest(path, query, headers, body, cap, dropped);
  }

  /** The body to send as {@code model}: only {@code model} and the tier's edits differ from the client's bytes. */
  public byte[] bodyFor(String model) {
    return body.rewrite(model, maxTokensCap, drop);
  }

  /**
   * The {@code max_tokens} each call asks for: the client's, lowered to the tier's cap; -1 when the
   * body has no integral {@code max_tokens}.
   */
  public long maxTokens() {
    long asked = body.maxTokens();
    return maxTokensCap > 0 && asked > maxTokensCap ? maxTokensCap : asked;
  }

  /** The upstream call carrying {@code body} to {@code endpoint}: same path, query and headers. */
  public UpstreamRequest to(Endpoint endpoint, byte[] body) {
    return new UpstreamRequest(uri(endpoint.baseUrl() + path + (query == null ? "" : "?" + query)), "POST",
        Headers.toUpstream(headers, endpoint.apiKey()), body);
  }

  private static URI uri(String text) {
    URI uri = URIS.get(text);
    if (uri == null) {
      uri = URI.create(text);
      if (URIS.size() < MAX_URIS) {
        URIS.put(text, uri);
      }
    }
    return uri;
  }

  @Override
  public String toString() {
    return "OriginalRequest[" + path + ", " + body + "]"; // never the headers: they hold the key
  }
}
