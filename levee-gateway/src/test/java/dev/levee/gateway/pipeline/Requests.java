package dev.levee.gateway.pipeline;

import dev.levee.anthropic.message.MessagesRequest;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.core.chain.Target;
import dev.levee.gateway.AliasChain;
import dev.levee.gateway.config.Feature;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/** Inbound requests for stage tests, as ingress would have made them. */
final class Requests {

  static final AliasChain SMART = new AliasChain("smart",
      List.of(new Target("a", "claude-big"), new Target("a", "claude-mid"), new Target("a", "claude-small")), true, true);

  private Requests() {}

  static InboundRequest inbound(String path, String json, Feature feature) throws Exception {
    return inbound(path, json, feature, Map.of());
  }

  /** With extra headers (e.g. {@code x-levee-priority}). */
  static InboundRequest inbound(String path, String json, Feature feature, Map<String, String> extra) throws Exception {
    MessagesRequest body = MessagesRequest.parse(json.getBytes(StandardCharsets.UTF_8));
    Map<String, List<String>> headers = new java.util.HashMap<>(Map.of("x-api-key", List.of("sk-tenant")));
    extra.forEach((name, value) -> headers.put(name, List.of(value)));
    OriginalRequest request = new OriginalRequest(path, null, headers, body);
    return new InboundRequest("lv_test_1", request, SMART, "chat", feature, "key:test");
  }

  static InboundRequest ask(String prompt, Feature feature) throws Exception {
    return inbound("/v1/messages", "{\"model\":\"smart\",\"max_tokens\":4096,\"thinking\":{\"type\":\"enabled\","
        + "\"budget_tokens\":2048},\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}", feature);
  }
}
