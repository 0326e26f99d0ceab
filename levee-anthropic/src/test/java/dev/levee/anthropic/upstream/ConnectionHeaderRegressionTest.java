package dev.levee.anthropic.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 9 item 7: headers named in {@code Connection} were forwarded. RFC 9110 §7.6.1 makes them
 * hop-by-hop: a gateway removes them, in both directions, whatever their names and case.
 */
class ConnectionHeaderRegressionTest {

  @Test
  void headersNamedInTheClientsConnectionHeaderStayHere() {
    Map<String, List<String>> in = new LinkedHashMap<>();
    in.put("Connection", List.of("keep-alive, X-Trace-Hop", "x-second-hop"));
    in.put("x-trace-hop", List.of("1"));
    in.put("X-Second-Hop", List.of("2"));
    in.put("Keep-Alive", List.of("timeout=5"));
    in.put("anthropic-version", List.of("2023-06-01"));
    in.put("x-api-key", List.of("sk-client"));

    Map<String, List<String>> out = Headers.toUpstream(in, "");

    assertThat(out).containsOnlyKeys("anthropic-version", "x-api-key");
  }

  @Test
  void headersNamedInTheUpstreamsConnectionHeaderDoNotReachTheClient() {
    Map<String, List<String>> upstream = new LinkedHashMap<>();
    upstream.put("connection", List.of("close, x-upstream-hop"));
    upstream.put("X-Upstream-Hop", List.of("1"));
    upstream.put("proxy-authenticate", List.of("Basic"));
    upstream.put("request-id", List.of("req_1"));

    assertThat(Headers.toClient(upstream)).containsOnlyKeys("request-id");
  }
}
