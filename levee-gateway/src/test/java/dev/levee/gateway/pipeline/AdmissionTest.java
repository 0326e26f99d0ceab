package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.config.FailMode;
import dev.levee.gateway.config.Feature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The admission stage on its own: a tier and a cache in, a decision out. */
class AdmissionTest {

  private static final byte[] ANSWER = ("{\"type\":\"message\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
      + "\"text\":\"cached\"}],\"stop_reason\":\"end_turn\"}").getBytes(StandardCharsets.UTF_8);

  private final ManualClock clock = new ManualClock();
  private final CachedAnswers cache = new CachedAnswers(new ResponseCache(ResponseCache.Config.DEFAULT, clock), null);

  private Admission at(Tier tier) {
    return new Admission(request -> tier, cache);
  }

  @Test
  void atT0AndT1TheRequestGoesUpstreamWithItsCacheSlot() throws Exception {
    InboundRequest in = Requests.ask("hello", Feature.defaults());

    for (Tier tier : new Tier[] {Tier.T0, Tier.T1}) {
      assertThat(at(tier).admit(in)).isInstanceOfSatisfying(Admission.Proceed.class, proceed -> {
        assertThat(proceed.tier()).isEqualTo(tier);
        assertThat(proceed.cache().mayStore()).isTrue();
        assertThat(proceed.cacheMissed()).isFalse();
      });
    }
  }

  @Test
  void atT2AFreshAnswerIsServedAndAMissGoesUpstream() throws Exception {
    InboundRequest cached = Requests.ask("asked before", Feature.defaults());
    cache.store(CacheSlot.of(cached, false), ANSWER, "claude-big", Duration.ofMinutes(10));

    assertThat(at(Tier.T2).admit(cached)).isInstanceOfSatisfying(Admission.FromCache.class,
        hit -> assertThat(hit.answer().status()).isEqualTo("hit"));
    assertThat(at(Tier.T2).admit(Requests.ask("never asked", Feature.defaults())))
        .isInstanceOfSatisfying(Admission.Proceed.class, miss -> assertThat(miss.cacheMissed()).isTrue());
  }

  @Test
  void atT2AnExpiredAnswerIsNotFreshEnough() throws Exception {
    InboundRequest in = Requests.ask("old question", Feature.defaults());
    cache.store(CacheSlot.of(in, false), ANSWER, "claude-big", Duration.ofMinutes(10));
    clock.advance(Duration.ofMinutes(11));

    assertThat(at(Tier.T2).admit(in)).isInstanceOf(Admission.Proceed.class);
  }

  @Test
  void atT3NothingGoesUpstream() throws Exception {
    Feature closed = new Feature(null, FailMode.CLOSED, null, null, null, null, null, null, null, null, null, null, null, null);

    assertThat(at(Tier.T3).admit(Requests.ask("hi", Feature.defaults()))).isInstanceOf(Admission.StaticText.class);
    assertThat(at(Tier.T3).admit(Requests.ask("hi", closed))).isInstanceOf(Admission.FailClosed.class);
  }

  @Test
  void aTokenCountIsAlwaysAdmittedAtT0WithoutTheCache() throws Exception {
    InboundRequest count = Requests.inbound("/v1/messages/count_tokens",
        "{\"model\":\"smart\",\"messages\":[{\"role\":\"user\",\"content\":\"count\"}]}", Feature.defaults());

    assertThat(at(Tier.T3).admit(count)).isEqualTo(new Admission.Proceed(Tier.T0, CacheSlot.NONE, false));
  }
}
