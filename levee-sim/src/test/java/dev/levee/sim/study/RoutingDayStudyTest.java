package dev.levee.sim.study;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A short day with an Opus brown-out: the scoring router moves traffic off Opus; the fixed chain cannot. */
class RoutingDayStudyTest {

  // 3 hours at 2 requests/s, Opus browned out for the middle hour
  private final List<RoutingDayStudy.Row> rows = new RoutingDayStudy(7, 2, 3, 1, 2, 0.6, 3).run();

  private RoutingDayStudy.Row row(RoutingDayStudy.Policy policy, String span) {
    return rows.stream().filter(r -> r.policy() == policy && r.span().equals(span)).findFirst().orElseThrow();
  }

  @Test
  void bothPoliciesServeTheSameRequests() {
    assertThat(rows).hasSize(4);
    assertThat(row(RoutingDayStudy.Policy.FIXED_CHAIN, "day").requests())
        .isEqualTo(row(RoutingDayStudy.Policy.SCORE_ROUTING, "day").requests())
        .isEqualTo(3 * 3600 * 2);
    assertThat(row(RoutingDayStudy.Policy.FIXED_CHAIN, "brown-out").requests()).isEqualTo(3600 * 2);
  }

  @Test
  void duringTheBrownOutScoreRoutingSendsLessToOpusWithFewerAttemptsAndLowerLatency() {
    RoutingDayStudy.Row fixed = row(RoutingDayStudy.Policy.FIXED_CHAIN, "brown-out");
    RoutingDayStudy.Row scored = row(RoutingDayStudy.Policy.SCORE_ROUTING, "brown-out");

    assertThat(scored.share(RoutingDayStudy.OPUS)).isLessThan(fixed.share(RoutingDayStudy.OPUS));
    assertThat(scored.attempts()).isLessThan(fixed.attempts());
    assertThat(scored.p95()).isLessThan(fixed.p95());
    assertThat(scored.loss()).isLessThanOrEqualTo(fixed.loss());
  }

  @Test
  void aBadParameterIsRefusedWithItsName() {
    assertThatThrownBy(() -> new RoutingDayStudy(1, 0, 24, 10, 13, 0.6, 3)).hasMessageContaining("rate");
    assertThatThrownBy(() -> new RoutingDayStudy(1, 2, 24, 13, 10, 0.6, 3)).hasMessageContaining("brown-out");
    assertThatThrownBy(() -> new RoutingDayStudy(1, 2, 24, 10, 13, 1.5, 3)).hasMessageContaining("fail rate");
  }
}
