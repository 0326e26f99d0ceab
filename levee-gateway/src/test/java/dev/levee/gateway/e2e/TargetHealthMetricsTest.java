package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.models.messages.Message;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Issue 10, "/metrics shows per-target health": each configured target's SLI window of API calls —
 * the shares and p99 the tiers' step-down signals read — is a gauge per target. The p99 is of
 * streams' times to first token: a JSON answer's time is its length, no latency sample.
 */
class TargetHealthMetricsTest {

  @Test
  void eachTargetsFailureShareAndP99AreGaugesOfItsOwn() throws Exception {
    String config = """
        models:
          s:
            chain: [emu/emu-503, emu/emu-ok]
        """ + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      Message message = h.sdk.messages().create(Harness.params("s", "one answer through the fallback"));
      assertThat(message.model().asString()).isEqualTo("emu-ok");
      String afterJson = h.awaitMetrics("levee_requests_total");
      assertThat(afterJson).as("a JSON answer is no latency sample")
          .contains("levee_target_p99_seconds{target=\"emu/emu-ok\"} 0.0");
      assertThat(Harness.text(h.streamed(Harness.params("s", "one stream through the fallback")))).isNotEmpty();

      String metrics = h.awaitMetrics("outcome=\"stream_complete\"");

      assertThat(metrics).contains("levee_target_server_error_share{target=\"emu/emu-503\"} 1.0")
          .contains("levee_target_server_error_share{target=\"emu/emu-ok\"} 0.0")
          .contains("levee_target_rate_limited_share{target=\"emu/emu-ok\"} 0.0");
      // one stream's first token, whatever the box's load: above zero (it was measured), below a minute
      Matcher p99 = Pattern.compile("levee_target_p99_seconds\\{target=\"emu/emu-ok\"} (\\S+)").matcher(metrics);
      assertThat(p99.find()).as("p99 gauge of emu/emu-ok in %s", metrics).isTrue();
      assertThat(Double.parseDouble(p99.group(1))).isGreaterThan(0).isLessThan(60);
    }
  }
}
