package dev.levee.gateway.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.anthropic.message.TokenUsage;
import dev.levee.anthropic.stream.ResilientStream;
import dev.levee.anthropic.stream.TargetUsage;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.core.chain.AttemptRecord;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.Target;
import dev.levee.core.route.PriceTable;
import dev.levee.core.tier.Tier;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.cache.ResponseCache;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.health.MetricLabels;
import dev.levee.gateway.health.Metrics;
import dev.levee.gateway.tier.TestBoards;
import dev.levee.gateway.tier.TierBoard;
import dev.levee.gateway.trace.Tracing;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An answer whose write failed because the server's {@code send-timeout} cut its connection (the
 * client stopped reading) is told apart from one whose client went away: {@code send_timeout} and
 * {@code stream_send_timeout} against {@code client_gone} and {@code stream_client_gone}, in the
 * access record and in the request's trace. The wire is a {@link Response} whose writes fail, on a
 * connection the send timeout marked or not; the real server's cut, its access line and metrics are
 * {@code StalledStreamClientRegressionTest}'s and {@code StalledJsonClientRegressionTest}'s.
 */
class SendTimeoutOutcomeTest {

  private static final Target BIG = Requests.SMART.targets().get(0);

  private final ManualClock clock = new ManualClock();
  private final Metrics metrics = new Metrics(new MetricLabels(Set.of(BIG), Set.of("smart"), Set.of("chat"),
      Set.of(BIG.model())), PriceTable.defaults(), clock);
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider provider =
      SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private TierBoard tiers;

  @AfterEach
  void close() {
    metrics.close();
    provider.close();
    if (tiers != null) {
      tiers.close();
    }
  }

  @Test
  void anAnswerWrittenWholeThatTheSendTimeoutCutSaysSo() {
    ClientResponse client = new ClientResponse(failingWrites(true), Callback.NOOP);
    client.send(200, Map.of(), "application/json", "{}".getBytes());

    Sent sent = new Sent(200, null, 1, false, "ok upstream_id=req_1").written(client);

    assertThat(client.endedBySendTimeout()).isTrue();
    assertThat(sent.outcome()).isEqualTo("send_timeout upstream_id=req_1");
    assertThat(sent.status()).as("the status sent").isEqualTo(200);
    assertThat(new Sent(200, null, 0, false, "cache_hit").written(client).outcome())
        .isEqualTo("send_timeout cache_hit");
  }

  @Test
  void anAnswerWrittenWholeWhoseClientWentAwayIsStillClientGone() {
    ClientResponse client = new ClientResponse(failingWrites(false), Callback.NOOP);
    client.send(200, Map.of(), "application/json", "{}".getBytes());

    Sent sent = new Sent(200, null, 1, false, "ok upstream_id=req_1").written(client);

    assertThat(client.endedBySendTimeout()).isFalse();
    assertThat(sent.outcome()).isEqualTo("client_gone upstream_id=req_1");
  }

  @Test
  void aStreamItsClientEndedIsNamedByHow() {
    assertThat(Responder.streamWord(ResilientStream.Outcome.CLIENT_GONE, true)).isEqualTo("stream_send_timeout");
    assertThat(Responder.streamWord(ResilientStream.Outcome.CLIENT_GONE, false)).isEqualTo("stream_client_gone");
    assertThat(Responder.streamWord(ResilientStream.Outcome.COMPLETE, false)).isEqualTo("stream_complete");
    assertThat(Responder.streamWord(ResilientStream.Outcome.FAILED, false)).isEqualTo("stream_failed");
  }

  /** The request span says what the access log says: a stream its client left is traced by how it left. */
  @Test
  void aStreamTheSendTimeoutCutIsTracedSo() throws Exception {
    Recorder recorder = recorder();
    InboundRequest in = Requests.ask("hello", Feature.defaults());
    Admission.Proceed admitted = new Admission.Proceed(Tier.T0, CacheSlot.NONE, false);
    Plan plan = new Plan(List.of(BIG), in.request(), null, true, Duration.ofMinutes(10), false);

    recorder.keepBooks(clock.nanos(), in, admitted, plan, clientGone(), true);
    recorder.keepBooks(clock.nanos(), in, admitted, plan, clientGone(), false);

    assertThat(spans.getFinishedSpanItems()).filteredOn(span -> span.getName().startsWith("chat"))
        .extracting(span -> span.getAttributes().get(AttributeKey.stringKey("levee.outcome")))
        .containsExactly("stream_send_timeout", "stream_client_gone");
  }

  private Recorder recorder() throws Exception {
    tiers = TestBoards.board("""
        upstreams:
          a: { url: "http://127.0.0.1:1" }
        models:
          smart: { chain: [a/claude-big, a/claude-mid] }
        """, clock);
    return new Recorder(new CachedAnswers(new ResponseCache(ResponseCache.Config.DEFAULT, clock), null), tiers,
        new AccessLog(), metrics, Tracing.of(OpenTelemetrySdk.builder().setTracerProvider(provider).build()), clock);
  }

  /** A stream on {@code BIG} past its commit point whose relay ended with its client gone. */
  private static Outcome.Streamed clientGone() {
    AttemptRecord answered = new AttemptRecord(BIG, AttemptRecord.Step.ANSWERED, null, Duration.ZERO,
        Duration.ofMillis(300), false, Duration.ZERO);
    ChainResult.Answered<Reply> first = new ChainResult.Answered<>(Reply.whole(200, Map.of(), new byte[0]), BIG, null,
        false, List.of(answered));
    return new Outcome.Streamed(first, ResilientStream.Outcome.CLIENT_GONE, BIG, 0, 1, null,
        List.of(new TargetUsage(BIG, new TokenUsage(10, 20, 0, 0))), null);
  }

  /**
   * A response whose writes fail as a closed connection's do, on a connection the send timeout cut
   * ({@code cut}: every connection attribute set) or one the client left (none set).
   */
  private Response failingWrites(boolean cut) {
    HttpFields.Mutable headers = HttpFields.build();
    ConnectionMetaData connection = (ConnectionMetaData) Proxy.newProxyInstance(getClass().getClassLoader(),
        new Class<?>[] {ConnectionMetaData.class},
        (proxy, method, args) -> method.getName().equals("getAttribute") && cut ? Boolean.TRUE : null);
    Request request = (Request) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Request.class},
        (proxy, method, args) -> method.getName().equals("getConnectionMetaData") ? connection : null);
    return (Response) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Response.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "getHeaders" -> headers;
          case "getRequest" -> request;
          case "write" -> {
            ((Callback) args[2]).failed(new EofException("closed"));
            yield null;
          }
          default -> null;
        });
  }
}
