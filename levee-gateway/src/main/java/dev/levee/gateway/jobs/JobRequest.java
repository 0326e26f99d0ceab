package dev.levee.gateway.jobs;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The request a job replays: what Levee needs to send it again, never the client's credentials
 * (those are sealed apart, see {@link KeySeal}).
 *
 * @param path e.g. {@code /v1/messages}
 * @param query the raw query string, or null
 * @param headers the headers to replay ({@code anthropic-version}, {@code anthropic-beta},
 *     {@code x-levee-*}, …), lower-case names
 * @param body the request body, bytes as the client sent them
 */
public record JobRequest(String path, String query, Map<String, List<String>> headers, byte[] body) {

  public JobRequest {
    headers = Map.copyOf(headers);
  }

  /** Headers never stored with a job: credentials (sealed apart, if at all) and per-connection ones. */
  private static final Set<String> NOT_STORED = Set.of("x-api-key", "authorization", "host", "content-length",
      "connection", "keep-alive", "transfer-encoding", "te", "upgrade", "expect", "accept-encoding",
      "idempotency-key", "cookie");

  /**
   * A request to replay later, from a client's headers: everything but credentials and
   * per-connection headers, names lower-cased; {@code content-type} JSON.
   */
  public static JobRequest replayable(String path, String query, Map<String, List<String>> inbound, byte[] body) {
    Map<String, List<String>> kept = new LinkedHashMap<>();
    inbound.forEach((name, values) -> {
      String lower = name.toLowerCase(Locale.ROOT);
      if (!NOT_STORED.contains(lower)) {
        kept.computeIfAbsent(lower, k -> new java.util.ArrayList<>()).addAll(values);
      }
    });
    kept.put("content-type", List.of("application/json"));
    return new JobRequest(path, query, kept, body);
  }

  /** This request with {@code name} (lower-case) set to {@code value} alone, replacing any value it had. */
  public JobRequest with(String name, String value) {
    Map<String, List<String>> changed = new LinkedHashMap<>(headers);
    changed.put(name, List.of(value));
    return new JobRequest(path, query, changed, body);
  }

  /**
   * The client's API key in {@code inbound} ({@code x-api-key}, else a bearer token), or null when
   * there is none. An empty (or blank) one is none: the API answers it as a missing key (401 "x-api-key
   * header is required"), so work that needs the client's key is refused or not queued for it alike
   * (Message Batches, the outage queue).
   */
  public static String clientKey(Map<String, List<String>> inbound) {
    String key = null;
    for (Map.Entry<String, List<String>> h : inbound.entrySet()) {
      if (h.getValue().isEmpty()) {
        continue;
      }
      if (h.getKey().equalsIgnoreCase("x-api-key")) {
        key = h.getValue().getFirst();
        break;
      }
      if (h.getKey().equalsIgnoreCase("authorization") && h.getValue().getFirst().regionMatches(true, 0, "Bearer ", 0, 7)) {
        key = h.getValue().getFirst().substring(7).strip();
      }
    }
    return key == null || key.isBlank() ? null : key;
  }

  @Override
  public String toString() {
    return "JobRequest[" + path + ", " + body.length + " bytes]";
  }
}
