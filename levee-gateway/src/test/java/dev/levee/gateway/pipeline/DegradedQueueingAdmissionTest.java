package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Priority;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.config.FailMode;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.OnOutage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Admission of a feature with {@code on-outage: queue} (issue 12, section 3): at T3 every
 * non-streaming request is queued; at T1/T2 those under the feature's {@code immediate-priority}
 * are (degraded mode); a stream, a fresh cached answer and a feature that does not queue are
 * never.
 */
class DegradedQueueingAdmissionTest {

  private static final byte[] ANSWER = ("{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
      + "\"text\":\"cached\"}],\"stop_reason\":\"end_turn\"}").getBytes(StandardCharsets.UTF_8);

  private final ManualClock clock = new ManualClock();
  private final CachedAnswers cache = new CachedAnswers(new ResponseCache(ResponseCache.Config.DEFAULT, clock), null);

  private static Feature queueing(Priority priority, FailMode failMode, Integer immediate) {
    return new Feature(priority, failMode, null, null, null, null, null, null, null, null, OnOutage.QUEUE, null, null,
        immediate);
  }

  private Admission at(Tier tier) {
    return new Admission(request -> tier, cache, feature -> feature.equals("chat"));
  }

  private static InboundRequest ask(String prompt, Feature feature, Map<String, String> headers, boolean stream)
      throws Exception {
    return Requests.inbound("/v1/messages", "{\"model\":\"smart\",\"max_tokens\":64,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + prompt + "\"}]}", feature, headers);
  }

  @Test
  void atT3EveryNonStreamingRequestIsQueuedAndAStreamGetsTheT3Answer() throws Exception {
    Feature closed = queueing(null, FailMode.CLOSED, null);

    assertThat(at(Tier.T3).admit(ask("hi", closed, Map.of("x-levee-priority", "9"), false)))
        .isInstanceOfSatisfying(Admission.Queue.class, q -> {
          assertThat(q.tier()).isEqualTo(Tier.T3);
          assertThat(q.otherwise()).isInstanceOf(Admission.FailClosed.class);
        });
    assertThat(at(Tier.T3).admit(ask("hi", closed, Map.of(), true))).isInstanceOf(Admission.FailClosed.class);
  }

  @Test
  void atT1RequestsUnderTheImmediatePriorityAreQueuedAndTheOthersGoUpstream() throws Exception {
    Feature feature = queueing(null, null, null); // standard: priority 5, immediate 7

    assertThat(at(Tier.T1).admit(ask("a", feature, Map.of(), false))).isInstanceOfSatisfying(Admission.Queue.class,
        q -> assertThat(q.otherwise()).isInstanceOf(Admission.Proceed.class));
    assertThat(at(Tier.T1).admit(ask("b", feature, Map.of("x-levee-priority", "6"), false)))
        .isInstanceOf(Admission.Queue.class);
    assertThat(at(Tier.T1).admit(ask("c", feature, Map.of("x-levee-priority", "7"), false)))
        .isInstanceOf(Admission.Proceed.class);
    assertThat(at(Tier.T0).admit(ask("d", feature, Map.of("x-levee-priority", "0"), false)))
        .as("at T0 nothing waits").isInstanceOf(Admission.Proceed.class);
    assertThat(at(Tier.T1).admit(ask("e", feature, Map.of("x-levee-priority", "high"), false)))
        .as("not one digit: the feature's priority").isInstanceOf(Admission.Queue.class);
  }

  @Test
  void theFeaturesOwnPriorityAndImmediatePriorityDecide() throws Exception {
    assertThat(at(Tier.T1).admit(ask("a", queueing(Priority.CRITICAL, null, null), Map.of(), false)))
        .as("critical is 8").isInstanceOf(Admission.Proceed.class);
    assertThat(at(Tier.T1).admit(ask("b", queueing(null, null, 0), Map.of("x-levee-priority", "0"), false)))
        .as("immediate-priority 0: degraded mode off").isInstanceOf(Admission.Proceed.class);
    assertThat(at(Tier.T2).admit(ask("c", queueing(Priority.OPTIONAL, null, null), Map.of(), false)))
        .as("optional is 2, a T2 miss").isInstanceOf(Admission.Queue.class);
  }

  @Test
  void atT2AFreshCachedAnswerIsStillServed() throws Exception {
    Feature feature = queueing(null, null, null);
    InboundRequest asked = ask("asked before", feature, Map.of(), false);
    cache.store(CacheSlot.of(asked, false), ANSWER, "claude-big", Duration.ofMinutes(10));

    assertThat(at(Tier.T2).admit(asked)).isInstanceOf(Admission.FromCache.class);
  }

  @Test
  void aFeatureThatDoesNotQueueIsNeverQueued() throws Exception {
    Admission none = new Admission(request -> Tier.T3, cache, feature -> false);

    assertThat(none.admit(ask("hi", Feature.defaults(), Map.of("x-levee-priority", "0"), false)))
        .isInstanceOf(Admission.StaticText.class);
  }
}
