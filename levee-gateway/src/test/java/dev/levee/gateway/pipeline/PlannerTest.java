package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import dev.levee.core.route.Circuits;
import dev.levee.core.route.Cooling;
import dev.levee.core.route.Preference;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.TaskType;
import dev.levee.core.tier.Priority;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import dev.levee.gateway.config.ThinkingPolicy;
import dev.levee.gateway.route.RouteDefaults;
import dev.levee.gateway.route.RoutingSettings;
import dev.levee.gateway.route.ScoreRouting;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The plan stage on its own: given a request and its admission, which targets, edits, deadline and TTL. */
class PlannerTest {

  private final ManualClock clock = new ManualClock();
  private final Planner planner = new Planner(Duration.ofSeconds(30), clock);

  private static Admission.Proceed admitted(Tier tier) {
    return new Admission.Proceed(tier, CacheSlot.NONE, tier == Tier.T2);
  }

  private static JsonNode sent(Plan plan, Target target) {
    return Json.tryParse(plan.request().bodyFor(target.model()));
  }

  @Test
  void atT0TheWholeChainGetsTheRequestAsSentWithTheHotTtlAndOneDeadline() throws Exception {
    Plan plan = planner.plan(Requests.ask("hello", Feature.defaults()), admitted(Tier.T0));

    assertThat(plan.targets()).isEqualTo(Requests.SMART.targets());
    assertThat(sent(plan, plan.targets().get(0)).path("max_tokens").asInt()).isEqualTo(4096);
    assertThat(sent(plan, plan.targets().get(0)).has("thinking")).isTrue();
    assertThat(plan.storeTtl()).isEqualTo(Feature.defaults().hotTtl());
    assertThat(plan.deadline().remaining()).isEqualTo(Duration.ofSeconds(30));
    assertThat(plan.recover()).isTrue();
    assertThat(plan.reduced()).isFalse();
  }

  @Test
  void atT1TheChainsLastTargetAnswersCappedAndWithoutThinking() throws Exception {
    Plan plan = planner.plan(Requests.ask("hello", Feature.defaults()), admitted(Tier.T1));

    assertThat(plan.targets()).as("the reduced target, then the rest from the chain's end")
        .containsExactly(new Target("a", "claude-small"), new Target("a", "claude-mid"), new Target("a", "claude-big"));
    JsonNode body = sent(plan, plan.targets().get(0));
    assertThat(body.path("max_tokens").asInt()).isEqualTo(Feature.Reduced.DEFAULT_MAX_TOKENS);
    assertThat(body.has("thinking")).isFalse();
    assertThat(plan.storeTtl()).isEqualTo(Feature.defaults().hotTtl());
    assertThat(plan.reduced()).isTrue();
  }

  @Test
  void aT2MissIsGeneratedAsAtT1AndCachedWithTheColdTtl() throws Exception {
    Plan plan = planner.plan(Requests.ask("hello", Feature.defaults()), admitted(Tier.T2));

    assertThat(plan.targets()).containsExactly(new Target("a", "claude-small"), new Target("a", "claude-mid"),
        new Target("a", "claude-big"));
    assertThat(plan.storeTtl()).isEqualTo(Feature.defaults().coldTtl());
  }

  @Test
  void theFeaturesReducedTargetCapAndThinkingPolicyApply() throws Exception {
    Feature critical = new Feature(Priority.CRITICAL, null, null,
        new Feature.Reduced(new GatewayConfig.TargetRef("b", "claude-haiku", null, 0), 800),
        null, null, null, null, null, ThinkingPolicy.ALWAYS, null, null, null, null);

    Plan plan = planner.plan(Requests.ask("hello", critical), admitted(Tier.T1));

    assertThat(plan.targets()).as("a reduced target outside the chain, then the whole chain from its end")
        .containsExactly(new Target("b", "claude-haiku"), new Target("a", "claude-small"), new Target("a", "claude-mid"),
            new Target("a", "claude-big"));
    JsonNode body = sent(plan, plan.targets().get(0));
    assertThat(body.path("max_tokens").asInt()).isEqualTo(800);
    assertThat(body.has("thinking")).isTrue();
  }

  @Test
  void aTokenCountGoesToTheChainUnchangedAndIsNeverCached() throws Exception {
    InboundRequest count = Requests.inbound("/v1/messages/count_tokens",
        "{\"model\":\"smart\",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}", Feature.defaults());

    Plan plan = planner.plan(count, admitted(Tier.T0));

    assertThat(plan.targets()).isEqualTo(Requests.SMART.targets());
    assertThat(plan.storeTtl()).isZero();
  }

  /** claude-mid is measured fastest, then claude-small, then claude-big; all else is equal. */
  private final ScoreRouting routing = new ScoreRouting(new RoutingSettings(null, null, null,
      Map.of("claude-big", Duration.ofSeconds(4), "claude-mid", Duration.ofSeconds(1), "claude-small", Duration.ofSeconds(3))),
      clock, InstantSource.system(), clock, Circuits.CLOSED, Cooling.NONE, (alias, target) -> { });
  private final Planner routed = new Planner(Duration.ofSeconds(30), clock, t -> null, routing);

  private static InboundRequest routedAsk(Feature feature) throws Exception {
    InboundRequest in = Requests.ask("hello", feature);
    return new InboundRequest(in.id(), in.request(), new dev.levee.gateway.AliasChain("smart", Requests.SMART.targets(),
        true, true, null, RouteDefaults.DEFAULT), in.feature(), in.config(), in.tenant(),
        new RouteRequest(TaskType.CODE, 500, Duration.ofSeconds(5), Preference.BALANCED));
  }

  @Test
  void atT0ARoutedAliasIsOrderedByTheRoutersScoreWithTheDecisionKeptForItsExplanation() throws Exception {
    Plan plan = routed.plan(routedAsk(Feature.defaults()), admitted(Tier.T0));

    assertThat(plan.targets()).containsExactly(new Target("a", "claude-mid"), new Target("a", "claude-small"),
        new Target("a", "claude-big"));
    assertThat(plan.route()).isNotNull();
    assertThat(plan.explainRoute()).startsWith("claude-mid=").contains(";claude-small=").contains(";claude-big=");
  }

  @Test
  void belowT0TheReducedTargetAnswersAndNothingIsRouted() throws Exception {
    Plan plan = routed.plan(routedAsk(Feature.defaults()), admitted(Tier.T1));

    assertThat(plan.targets()).containsExactly(new Target("a", "claude-small"), new Target("a", "claude-mid"),
        new Target("a", "claude-big"));
    assertThat(plan.route()).isNull();
    assertThat(plan.explainRoute()).isNull();
  }

  @Test
  void aRequestIngressDidNotRouteKeepsTheChainOrder() throws Exception {
    Plan plan = routed.plan(Requests.ask("hello", Feature.defaults()), admitted(Tier.T0));

    assertThat(plan.targets()).isEqualTo(Requests.SMART.targets());
    assertThat(plan.route()).isNull();
  }
}
