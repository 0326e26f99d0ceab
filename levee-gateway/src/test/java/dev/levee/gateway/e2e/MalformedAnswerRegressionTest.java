package dev.levee.gateway.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.anthropic.core.http.HttpResponseFor;
import com.anthropic.models.messages.Message;
import dev.levee.core.chain.Target;
import dev.levee.emulator.LogEntry;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Regression (issue 9, item 3): {@code emu-malformed-3} in JSON mode answered 200 with a body
 * missing its final {@code }}; the gateway relayed it as {@code outcome=ok} after one call and
 * every SDK then failed to parse it. A 200 that is not a complete message is the upstream's
 * failure: retried, failed over, counted by the breaker — the client gets a good answer.
 */
class MalformedAnswerRegressionTest {

  @Test
  void aTruncatedJsonAnswerIsRetriedAndTheClientGetsTheGoodOne() throws Exception {
    try (Harness h = Harness.start("models:\n  s:\n    chain: [emu/emu-malformed-3]\n" + Harness.BASE_POLICY)) {
      HttpResponseFor<Message> raw = h.sdk.messages().withRawResponse().create(Harness.params("s", "truncated once"));

      Message answer = raw.parse();
      assertThat(Harness.text(answer)).isEqualTo(h.expectedText("truncated once"));
      assertThat(raw.headers().values("x-levee-attempts")).containsExactly("2");
      assertThat(h.attempts("emu-malformed-3")).extracting(LogEntry::action).containsExactly("malformed@3", "ok");
      assertThat(h.gateway.chain().breakers().of(new Target("emu", "emu-malformed-3")).snapshot().recentFailures())
          .isEqualTo(1);
    }
  }

  @Test
  void aTargetThatKeepsAnsweringBrokenBodiesIsFailedOver() throws Exception {
    String config = "models:\n  s:\n    chain: [emu/emu-malformed-3-always, emu/emu-ok]\n" + Harness.BASE_POLICY;
    try (Harness h = Harness.start(config)) {
      HttpResponseFor<Message> raw = h.sdk.messages().withRawResponse().create(Harness.params("s", "always broken"));

      Message answer = raw.parse();
      assertThat(answer.model().asString()).isEqualTo("emu-ok");
      assertThat(Harness.text(answer)).isEqualTo(h.expectedText("always broken"));
      assertThat(raw.headers().values("x-levee-fallback")).containsExactly("true");
      assertThat(h.attempts("emu-malformed-3-always")).hasSize(3); // first call + 2 retries
    }
  }

  @Test
  void aBodyShorterThanItsContentLengthIsRetried() throws Exception {
    try (Harness h = Harness.start("models:\n  s:\n    chain: [emu/emu-cut-3]\n" + Harness.BASE_POLICY)) {
      HttpResponseFor<Message> raw = h.sdk.messages().withRawResponse().create(Harness.params("s", "cut short"));

      assertThat(Harness.text(raw.parse())).isEqualTo(h.expectedText("cut short"));
      assertThat(raw.headers().values("x-levee-attempts")).containsExactly("2");
      List<LogEntry> attempts = h.attempts("emu-cut-3");
      assertThat(attempts).extracting(LogEntry::action).containsExactly("cut@3", "ok");
    }
  }
}
