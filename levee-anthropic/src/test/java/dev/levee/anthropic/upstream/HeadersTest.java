package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HeadersTest {

  private static Map<String, List<String>> inbound() {
    Map<String, List<String>> h = new LinkedHashMap<>();
    h.put("Host", List.of("gw:8080"));
    h.put("Content-Length", List.of("10"));
    h.put("Connection", List.of("keep-alive"));
    h.put("Accept-Encoding", List.of("gzip"));
    h.put("x-api-key", List.of("sk-client"));
    h.put("anthropic-version", List.of("2023-06-01"));
    h.put("Anthropic-Beta", List.of("a-2025-01-01", "b-2025-02-02"));
    h.put("x-levee-feature", List.of("chat"));
    h.put("x-stainless-lang", List.of("java"));
    return h;
  }

  @Test
  void forwardsEverythingButHopByHopComputedAndLeveeHeaders() {
    Map<String, List<String>> out = Headers.toUpstream(inbound(), "");

    assertThat(out).containsOnlyKeys("x-api-key", "anthropic-version", "anthropic-beta", "x-stainless-lang");
    assertThat(out.get("anthropic-beta")).containsExactly("a-2025-01-01", "b-2025-02-02");
    assertThat(out.get("x-api-key")).containsExactly("sk-client");
  }

  @Test
  void anUpstreamKeyReplacesTheClientsCredentials() {
    Map<String, List<String>> in = inbound();
    in.put("Authorization", List.of("Bearer client"));

    Map<String, List<String>> out = Headers.toUpstream(in, "sk-upstream");

    assertThat(out.get("x-api-key")).containsExactly("sk-upstream");
    assertThat(out).doesNotContainKey("authorization");
  }

  @Test
  void returnsUpstreamHeadersButNotFramingOnes() {
    Map<String, List<String>> out = Headers.toClient(Map.of(
        "request-id", List.of("req_1"),
        "anthropic-ratelimit-requests-remaining", List.of("9"),
        "content-length", List.of("5"),
        "transfer-encoding", List.of("chunked"),
        ":status", List.of("200")));

    assertThat(out).containsOnlyKeys("request-id", "anthropic-ratelimit-requests-remaining");
  }
}
