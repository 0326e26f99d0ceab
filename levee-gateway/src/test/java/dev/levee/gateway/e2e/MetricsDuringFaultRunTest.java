package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.anthropic.models.messages.Message;
import dev.levee.anthropic.Json;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: {@code /metrics} scraped during a fault run (an overloaded primary that opens its
 * circuit, a fallback that answers, a stream cut and recovered) moves as an operator expects:
 * attempts by outcome, retries, fallbacks, breaker transitions, answers by source, client request
 * durations, TTFT, recoveries, tokens and cost; {@code /health} says what was never called.
 */
class MetricsDuringFaultRunTest {

  private static final String CONFIG = """
      models:
        smart:
          chain: [emu/emu-529, emu/claude-sonnet-4-5]
        s:
          chain: [emu/emu-cut-5, emu/claude-haiku-4-5]
        unused:
          chain: [emu/claude-opus-4-5]
      """ + Harness.BASE_POLICY;

  @Test
  void seriesMoveAsTheFaultsHappen() throws Exception {
    try (Harness h = Harness.start(CONFIG)) {
      Scrape before = new Scrape(h.get("/metrics").body());
      assertThat(before.value("levee_attempts_total", Map.of("target", "emu/emu-529", "outcome", "overloaded"))).isZero();
      assertThat(before.value("levee_circuit_transitions_total",
          Map.of("target", "emu/emu-529", "from", "CLOSED", "to", "OPEN"))).isZero();
      assertThat(before.value("levee_fallbacks_total", Map.of("alias", "smart"))).isZero();
      assertThat(before.value("levee_hedges_total", Map.of("outcome", "won"))).isZero();
      assertThat(before.value("levee_build_info")).isEqualTo(1.0);
      assertThat(before.has("jvm_memory_used_bytes")).isTrue();
      assertThat(before.has("process_cpu_usage")).isTrue();
      JsonNode health = Json.MAPPER.readTree(h.get("/health").body());
      assertThat(health.at("/targets/emu~1claude-sonnet-4-5/health").asText()).isEqualTo("unknown");

      for (int i = 0; i < 3; i++) {
        h.sdk.messages().create(Harness.params("smart", "fault run " + i));
      }

      Scrape during = new Scrape(h.awaitMetrics("levee_fallbacks_total{alias=\"smart\"} 3.0"));
      double overloaded = during.value("levee_attempts_total", Map.of("target", "emu/emu-529", "outcome", "overloaded"));
      assertThat(overloaded).isGreaterThanOrEqualTo(5); // the default breaker opens after 5 failures
      assertThat(during.value("levee_upstream_calls_total", Map.of("target", "emu/emu-529", "outcome", "overloaded")))
          .as("the old name still counts").isEqualTo(overloaded);
      assertThat(during.value("levee_attempts_total", Map.of("target", "emu/claude-sonnet-4-5", "outcome", "success")))
          .isEqualTo(3);
      assertThat(during.value("levee_retries_total", Map.of("target", "emu/emu-529")))
          .as("each call after a failed call to the same target").isEqualTo(overloaded - 2);
      assertThat(during.value("levee_circuit_transitions_total",
          Map.of("target", "emu/emu-529", "from", "CLOSED", "to", "OPEN"))).isEqualTo(1);
      assertThat(during.value("levee_circuit_state", Map.of("target", "emu/emu-529"))).isEqualTo(2);
      assertThat(during.value("levee_answers_total", Map.of("feature", "default", "source", "fallback"))).isEqualTo(3);
      Map<String, String> ok = Map.of("alias", "smart", "feature", "default", "tier", "T0", "status_class", "2xx");
      assertThat(during.value("levee_request_duration_seconds_count", ok)).isEqualTo(3);
      assertThat(during.value("levee_request_duration_seconds_bucket", merge(ok, "le", "120.0"))).isEqualTo(3);
      assertThat(during.value("levee_attempt_duration_seconds_count", Map.of("target", "emu/emu-529")))
          .isEqualTo(overloaded);
      assertThat(during.value("levee_tokens_total", Map.of("model", "claude-sonnet-4-5", "type", "input"))).isPositive();
      assertThat(during.value("levee_tokens_total", Map.of("model", "claude-sonnet-4-5", "type", "output"))).isPositive();
      assertThat(during.value("levee_cost_usd_total",
          Map.of("feature", "default", "tier", "T0", "model", "claude-sonnet-4-5"))).isPositive();
      assertThat(during.value("levee_stream_recoveries_total", Map.of("alias", "s"))).isZero();

      Message streamed = h.streamed(Harness.params("s", "cut me"));
      assertThat(Harness.text(streamed)).isEqualTo(h.expectedText("cut me"));

      // the recovery is counted before the stream's end reaches the SDK, but its answer (source) and
      // the in-flight gauge only after the end went out, on the server's thread: wait for all three
      Scrape after = new Scrape(h.awaitMetrics("levee_stream_recoveries_total{alias=\"s\"} 1.0",
          "levee_answers_total{feature=\"default\",source=\"primary\"} 1.0", "levee_requests_in_flight 0.0"));
      assertThat(after.value("levee_ttft_seconds_count", Map.of("target", "emu/emu-cut-5"))).isEqualTo(1);
      assertThat(after.value("levee_answers_total", Map.of("feature", "default", "source", "primary"))).isEqualTo(1);
      assertThat(after.value("levee_tokens_total", Map.of("model", "emu-cut-5", "type", "output")))
          .as("a configured target's model has its own label").isPositive();
      assertThat(after.value("levee_requests_in_flight")).isZero();
      assertThat(after.value("levee_ready")).isEqualTo(1);

      health = Json.MAPPER.readTree(h.get("/health").body());
      assertThat(health.at("/targets/emu~1emu-529/health").asText()).isEqualTo("unhealthy");
      assertThat(health.at("/targets/emu~1claude-sonnet-4-5/health").asText()).isEqualTo("healthy");
      assertThat(health.at("/targets/emu~1claude-opus-4-5/health").asText()).isEqualTo("unknown");
      assertThat(health.at("/cost/usd_last_hour").asDouble()).isPositive();
      assertThat(health.at("/cost/by_feature_and_tier/default/T0").asDouble()).isPositive();
    }
  }

  private static Map<String, String> merge(Map<String, String> labels, String key, String value) {
    Map<String, String> all = new java.util.HashMap<>(labels);
    all.put(key, value);
    return all;
  }
}
