package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.TargetUsage;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.health.GuardedParts;
import dev.levee.gateway.health.MetricLabels;
import dev.levee.gateway.health.Metrics;
import dev.levee.core.route.PriceTable;
import dev.levee.gateway.tier.TestBoards;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.gateway.trace.Tracing;
import io.micrometer.core.instrument.Counter;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Regression (stage 6 robustness): the recorder's parts ran one after another with nothing between
 * them, so a part that threw — the cache store of a completed stream whose message could not be
 * assembled (an answer of an odd shape, as in 4c4d254e) — skipped the metrics, the trace and
 * everything after it, and reached the handler, which then never sent the stream's end. Now each
 * part runs on its own ({@link GuardedParts}): the others still run, nothing is thrown, and the
 * failing part is warned of once however many requests it fails.
 */
class StageSixPartFailureRegressionTest {

  private static final Target BIG = Requests.SMART.targets().get(0);
  private static final Target MID = Requests.SMART.targets().get(1);

  private final ManualClock clock = new ManualClock();
  private final ResponseCache cache = new ResponseCache(ResponseCache.Config.DEFAULT, clock);
  private final Metrics metrics = new Metrics(new MetricLabels(Set.of(BIG, MID), Set.of("smart"), Set.of("chat"),
      Set.of(BIG.model(), MID.model())), PriceTable.defaults(), clock);
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final List<String> warned = new ArrayList<>();
  private TierBoard tiers;

  @AfterEach
  void close() {
    metrics.close();
    provider.close();
    if (tiers != null) {
      tiers.close();
    }
  }

  private Recorder recorder() throws Exception {
    tiers = TestBoards.board("""
        upstreams:
          a: { url: "http://127.0.0.1:1" }
        models:
          smart: { chain: [a/claude-big, a/claude-mid] }
        """, clock);
    return new Recorder(new CachedAnswers(cache, null), tiers, new AccessLog(), metrics,
        Tracing.of(OpenTelemetrySdk.builder().setTracerProvider(provider).build()), clock,
        new GuardedParts(metrics::bookkeepingFailed, (part, e) -> warned.add(part)));
  }

  /** A completed stream that started on {@code BIG} and was finished by {@code last}, whose message the cache gets from {@code message}. */
  private static Outcome.Streamed completed(Target last, int recoveries, Supplier<byte[]> message) {
    AttemptRecord answered = new AttemptRecord(BIG, AttemptRecord.Step.ANSWERED, null, Duration.ZERO,
        Duration.ofMillis(300), false, Duration.ZERO);
    ChainResult.Answered<Reply> first = new ChainResult.Answered<>(Reply.whole(200, Map.of(), new byte[0]), BIG, null,
        false, List.of(answered));
    return new Outcome.Streamed(first, ResilientStream.Outcome.COMPLETE, last, recoveries, 1 + recoveries, message,
        List.of(new TargetUsage(BIG, new TokenUsage(10, 20, 0, 0))), null);
  }

  /** The counter {@code name} of the given tags (key, value, …), 0 when none was registered. */
  private double count(String name, String... tags) {
    Counter counter = metrics.registry().find(name).tags(tags).counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aCacheStoreThatThrowsSkipsNeitherMetricsNorTraceNorTheAccessRecordAndIsWarnedOfOnce() throws Exception {
    Recorder recorder = recorder();
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    Admission.Proceed admitted = new Admission.Proceed(Tier.T0, CacheSlot.of(in, false), false);
    Plan plan = new Plan(List.of(BIG, MID), in.request(), null, true, Duration.ofMinutes(10), false);
    Outcome.Streamed odd = completed(BIG, 0, () -> {
      throw new UnsupportedOperationException("usage is not an object");
    });

    for (int request = 0; request < 50; request++) {
      assertThatCode(() -> {
        recorder.keepBooks(clock.nanos(), in, admitted, plan, odd, false);
        recorder.log(clock.nanos(), in, Tier.T0, new Sent(200, BIG, 1, false, "stream_complete"), List.of(), null);
      }).doesNotThrowAnyException();
    }

    assertThat(warned).as("one warning for 50 failures").containsExactly("cache_store");
    assertThat(count("levee_bookkeeping_failures", "part", "cache_store")).isEqualTo(50);
    assertThat(count("levee_tokens", "model", BIG.model(), "type", "output")).as("metrics still counted").isEqualTo(50 * 20);
    assertThat(count("levee_requests", "outcome", "stream_complete")).as("access record still counted").isEqualTo(50);
    assertThat(spans.getFinishedSpanItems().stream().filter(s -> s.getName().startsWith("chat")).count())
        .as("trace still recorded").isEqualTo(50);
  }

  /**
   * Regression: the access record was written after stage 7 returned, so an answer whose writing
   * threw left no record of a call that was made and settled ({@link UnsentAnswerRecordedRegressionTest}).
   */
  @Test
  void anAnswerWhoseWritingThrowsIsStillRecordedAndTheExceptionGoesOn() throws Exception {
    Recorder recorder = recorder();
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    Outcome.Answered answered = new Outcome.Answered(new ChainResult.Answered<>(Reply.whole(200, Map.of(),
        new byte[0]), BIG, null, false, List.of()), 1);

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> recorder.respondThenLog(clock.nanos(), in, Tier.T0,
        List.of(), null, answered, () -> 0, () -> {
          throw new IllegalStateException("head refused");
        }, () -> { })).isInstanceOf(IllegalStateException.class).hasMessage("head refused");
    Sent sent = recorder.respondThenLog(clock.nanos(), in, Tier.T0, List.of(), null, answered, () -> 200,
        () -> new Sent(200, BIG, 1, false, "ok"), () -> { });

    assertThat(sent.outcome()).isEqualTo("ok");
    assertThat(count("levee_requests", "outcome", "error")).as("the failed answer, recorded").isEqualTo(1);
    assertThat(count("levee_requests", "outcome", "ok")).isEqualTo(1);
  }

  /**
   * docs/gateway.md: a stream cut on one target and finished on another is, in its trace, the
   * finishing target's ({@code levee.target}); its access record's {@code target=} is the one it
   * started on (its {@code last=} the finishing one, {@link Responder#respond}).
   */
  @Test
  void aRecoveredStreamsTraceNamesTheTargetThatFinishedIt() throws Exception {
    Recorder recorder = recorder();
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    Admission.Proceed admitted = new Admission.Proceed(Tier.T0, CacheSlot.NONE, false);
    Plan plan = new Plan(List.of(BIG, MID), in.request(), null, true, Duration.ofMinutes(10), false);

    recorder.keepBooks(clock.nanos(), in, admitted, plan, completed(MID, 1, null), false);

    SpanData request = spans.getFinishedSpanItems().stream().filter(s -> s.getName().startsWith("chat")).findFirst()
        .orElseThrow();
    assertThat(request.getAttributes().get(AttributeKey.stringKey("levee.target"))).isEqualTo(MID.id());
    assertThat(request.getAttributes().get(AttributeKey.longKey("levee.recoveries"))).isEqualTo(1L);
    assertThat(warned).isEmpty();
  }
}
