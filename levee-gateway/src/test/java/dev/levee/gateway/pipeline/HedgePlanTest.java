package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.chain.HedgePolicy;
import dev.levee.core.chain.Target;
import dev.levee.core.sli.SliSnapshot;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.AliasChain;
import dev.levee.gateway.config.Feature;
import java.time.Duration;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The plan carries the alias's hedge delay: fixed, or the first target's measured p95; none at T1. */
class HedgePlanTest {

  private final ManualClock clock = new ManualClock();

  private static InboundRequest through(HedgePolicy hedge) throws Exception {
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    AliasChain alias = new AliasChain("smart", Requests.SMART.targets(), true, true, hedge, null);
    return new InboundRequest(in.id(), in.request(), alias, in.feature(), in.config(), in.tenant());
  }

  private static Admission.Proceed at(Tier tier) {
    return new Admission.Proceed(tier, CacheSlot.NONE, false);
  }

  private static SliSnapshot measured(long successes, long p95Millis) {
    return new SliSnapshot(60, successes, 0, 0, 0, p95Millis / 2, p95Millis, p95Millis * 2);
  }

  @Test
  void aFixedDelayIsPlannedAsConfigured() throws Exception {
    Planner planner = new Planner(Duration.ofSeconds(30), clock);

    Plan plan = planner.plan(through(HedgePolicy.after(Duration.ofMillis(500))), at(Tier.T0));

    assertThat(plan.hedgeAfter()).isEqualTo(Duration.ofMillis(500));
  }

  @Test
  void p95IsReadFromTheFirstTargetsRecentCalls() throws Exception {
    Function<Target, SliSnapshot> stats = t -> t.equals(Requests.SMART.targets().getFirst()) ? measured(40, 740) : null;
    Planner planner = new Planner(Duration.ofSeconds(30), clock, stats, null);

    assertThat(planner.plan(through(HedgePolicy.atP95()), at(Tier.T0)).hedgeAfter()).isEqualTo(Duration.ofMillis(740));
  }

  @Test
  void p95WithTooFewCallsUsesTheDefault() throws Exception {
    Planner planner = new Planner(Duration.ofSeconds(30), clock, t -> measured(3, 740), null);

    assertThat(planner.plan(through(HedgePolicy.atP95()), at(Tier.T0)).hedgeAfter())
        .isEqualTo(HedgePolicy.P95_UNMEASURED);
  }

  @Test
  void noHedgeWithoutAPolicyOrASecondTarget() throws Exception {
    Planner planner = new Planner(Duration.ofSeconds(30), clock);

    assertThat(planner.plan(through(null), at(Tier.T0)).hedgeAfter()).isNull();
    assertThat(planner.plan(through(HedgePolicy.after(Duration.ofMillis(500))), at(Tier.T1)).hedgeAfter())
        .as("below T0 nothing is hedged: the fallbacks are the targets the tier sheds load from").isNull();
  }
}
