package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.AttemptRecord.Step;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Both calls of a hedged pair show on the access line, with how the hedge ended. */
class AccessRecordTest {

  private static final Target SLOW = Target.parse("emu/emu-slow-ttft-3000");
  private static final Target OK = Target.parse("emu/emu-ok");

  private static AccessRecord record(AttemptRecord... steps) {
    return new AccessRecord("lv_1", "POST", "/v1/messages", "s", false, Tier.T0, 200, OK, steps.length, true, 600,
        "ok", null, List.of(steps), null);
  }

  private static AttemptRecord step(Target target, Step step, boolean hedge) {
    return new AttemptRecord(target, step, null, Duration.ZERO, Duration.ofMillis(500), hedge);
  }

  @Test
  void aHedgeThatAnsweredFirstWon() {
    AccessRecord r = record(step(SLOW, Step.CANCELLED, false), step(OK, Step.ANSWERED, true));

    assertThat(r.hedge()).isEqualTo("won");
    assertThat(r.attempts()).isEqualTo("[emu/emu-slow-ttft-3000 cancelled, emu/emu-ok answered (hedge)]");
  }

  @Test
  void aHedgeAbortedBecauseTheFirstCallAnsweredLost() {
    assertThat(record(step(SLOW, Step.ANSWERED, false), step(OK, Step.CANCELLED, true)).hedge()).isEqualTo("lost");
  }

  @Test
  void aHedgeThatFailedFailed() {
    assertThat(record(step(SLOW, Step.ANSWERED, false), step(OK, Step.FAILED, true)).hedge()).isEqualTo("failed");
  }

  /**
   * Regression (models-api): a hedge whose target's retry budget refused it left no trace on the
   * access line or in {@code levee_hedges_total}, though a retry the budget refuses is a step of
   * its own; it is now {@code hedge=budget_denied}, with no call in {@code attempts}.
   */
  @Test
  void aHedgeTheRetryBudgetRefusedIsBudgetDenied() {
    AccessRecord r = record(step(SLOW, Step.ANSWERED, false), step(OK, Step.BUDGET_DENIED, true));

    assertThat(r.hedge()).isEqualTo("budget_denied");
    assertThat(r.attempts()).isEqualTo("[emu/emu-slow-ttft-3000 answered]");
  }

  @Test
  void aRequestWithoutAHedgeHasNone() {
    assertThat(record(step(SLOW, Step.ANSWERED, false)).hedge()).isNull();
    assertThat(new AccessRecord("lv_2", "POST", "/v1/messages", "s", false, Tier.T0, 200, OK, 1, false, 20, "ok", null,
        List.of(), null).hedge()).isNull();
  }
}
