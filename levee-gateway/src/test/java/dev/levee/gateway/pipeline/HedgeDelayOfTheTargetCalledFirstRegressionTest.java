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
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Regression (session 12's leftovers): a {@code hedge: { after: p95 }} delay was read from the
 * plan's first target, and {@link Execution} used it whatever target went first after pacing (the
 * first candidate whose rate limit covers the request) and the cooldowns (a cooling target
 * skipped): a fast primary's 50 ms hedged a slow fallback's every call, or a slow primary's 2 s
 * let a fast one's stall. The plan now gives the delay of the order the chain runs in.
 * (The old code had no order to ask with: its plan carried one {@code Duration}, the primary's,
 * which {@link Execution} passed on for every order. Verified by having {@link Plan#hedgeAfter(List)}
 * read the plan's own order instead, as that did: it fails at "paced".)
 */
class HedgeDelayOfTheTargetCalledFirstRegressionTest {

  private static final SliSnapshot FAST = new SliSnapshot(60, 40, 0, 0, 0, 50, 80, 160);
  private static final SliSnapshot SLOW = new SliSnapshot(60, 40, 0, 0, 0, 700, 1400, 2800);

  @Test
  void theDelayIsTheOneOfTheTargetCalledFirst() throws Exception {
    List<Target> chain = Requests.SMART.targets();
    Target primary = chain.get(0);
    Target fallback = chain.get(1);
    Map<Target, SliSnapshot> measured = Map.of(primary, FAST, fallback, SLOW);
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    InboundRequest hedged = new InboundRequest(in.id(), in.request(),
        new AliasChain("smart", chain, true, true, HedgePolicy.atP95(), null), in.feature(), in.config(), in.tenant());

    Plan plan = new Planner(Duration.ofSeconds(30), new ManualClock(), measured::get, null)
        .plan(hedged, new Admission.Proceed(Tier.T0, CacheSlot.NONE, false));

    assertThat(plan.hedgeAfter()).as("in the plan's order").isEqualTo(Duration.ofMillis(80));
    assertThat(plan.hedgeAfter(List.of(fallback, primary))).as("paced: the fallback first").isEqualTo(Duration.ofMillis(1400));
    assertThat(plan.hedgeAfter(List.of(fallback))).as("the primary cooling: nothing to hedge to").isNull();
  }
}
