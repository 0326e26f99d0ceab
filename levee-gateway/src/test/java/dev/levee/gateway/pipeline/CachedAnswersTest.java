package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.upstream.AnswerShape;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.config.Feature;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CachedAnswersTest {

  private static final byte[] FINISHED = ("{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-big\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"Hi\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
      + "\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}").getBytes(StandardCharsets.UTF_8);
  private static final Duration TTL = Duration.ofMinutes(10);

  private final ResponseCache cache = new ResponseCache(ResponseCache.Config.DEFAULT, new ManualClock());
  private final CachedAnswers answers = new CachedAnswers(cache, null);

  private static Reply checked(byte[] body) {
    return Reply.whole(200, Map.of(), body, AnswerShape.MESSAGE.check(body));
  }

  private static CacheSlot slot(String prompt) throws Exception {
    return CacheSlot.of(Requests.ask(prompt, Feature.defaults()), false);
  }

  @Test
  void aJsonAnswerItsShapeCheckFoundFinishedIsStoredAsItsOwnBytes() throws Exception {
    CacheSlot slot = slot("hello");

    answers.store(slot, checked(FINISHED), "claude-big", TTL);

    assertThat(cache.lookup(slot.key())).isInstanceOfSatisfying(ResponseCache.Fresh.class,
        fresh -> assertThat(fresh.answer().messageJson()).as("not copied, not re-read").isSameAs(FINISHED));
    assertThat(cache.stats().puts()).isEqualTo(1);
  }

  @Test
  void aJsonAnswerNotFoundFinishedIsCheckedAsBefore() throws Exception {
    byte[] noStop = new String(FINISHED, StandardCharsets.UTF_8).replace("\"end_turn\"", "null")
        .getBytes(StandardCharsets.UTF_8);
    CacheSlot unchecked = slot("unchecked");
    CacheSlot unfinished = slot("unfinished");

    answers.store(unchecked, Reply.whole(200, Map.of(), FINISHED), "claude-big", TTL); // finished, but nobody said so
    answers.store(unfinished, checked(noStop), "claude-big", TTL);

    assertThat(cache.lookup(unchecked.key())).isInstanceOf(ResponseCache.Fresh.class);
    assertThat(cache.lookup(unfinished.key())).isInstanceOf(ResponseCache.Miss.class);
    assertThat(cache.stats().refused()).isEqualTo(1);
  }

  @Test
  void noStoreKeepsNothingAndWorksOutNoKey() throws Exception {
    CacheSlot slot = CacheSlot.of(Requests.inbound("/v1/messages", "{\"model\":\"smart\",\"messages\":[]}",
        Feature.defaults(), Map.of("cache-control", "no-store")), false);

    answers.store(slot, checked(FINISHED), "claude-big", TTL);

    assertThat(slot.key()).isNull();
    assertThat(cache.size()).isZero();
  }
}
