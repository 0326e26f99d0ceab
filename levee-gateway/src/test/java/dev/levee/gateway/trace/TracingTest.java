package dev.levee.gateway.trace;

import static org.assertj.core.api.Assertions.assertThat;

import dev.levee.emulator.Emulator;
import dev.levee.emulator.EmulatorOptions;
import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 15, traces: one server span per client request, a child per attempt and per backoff
 * wait, GenAI attributes and Levee's; a client's {@code traceparent} is the parent. Exported to
 * the SDK's in-memory exporter.
 */
class TracingTest {

  private static final String TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
  private static final String PARENT = "b7ad6b7169203331";

  @Test
  void aRequestWithRetriesAndAFallbackIsOneSpanWithAttemptsAndWaitsUnderTheClientsParent(@TempDir Path queue)
      throws Exception {
    InMemorySpanExporter exported = InMemorySpanExporter.create();
    SdkTracerProvider provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exported)).build();
    OpenTelemetrySdk otel = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    try (Emulator emulator = Emulator.start(EmulatorOptions.defaults())) {
      String yaml = """
          server: { port: 0 }
          upstreams:
            emu:
              url: ${EMU}
          models:
            smart:
              chain: [emu/emu-529, emu/claude-sonnet-4-5]
          policy:
            retry: { max-retries: 2, base-delay: 10ms, max-delay: 50ms }
          queue: { folder: "${QUEUE}" }
          """;
      GatewayConfig config = new ConfigLoader(Map.of("EMU", emulator.baseUrl(), "QUEUE", queue.toString())::get)
          .parse(yaml, "t.yaml");
      try (Gateway gateway = Gateway.start(config, GatewayClock.system(), Tracing.of(otel));
           HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(URI.create(gateway.baseUrl() + "/v1/messages"))
            .header("x-api-key", "k").header("content-type", "application/json").header("anthropic-version", "2023-06-01")
            .header("traceparent", "00-" + TRACE_ID + "-" + PARENT + "-01")
            .POST(HttpRequest.BodyPublishers.ofString(
                "{\"model\":\"smart\",\"max_tokens\":32,\"messages\":[{\"role\":\"user\",\"content\":\"trace me\"}]}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
      }
    }
    List<SpanData> spans = exported.getFinishedSpanItems();
    SpanData request = spans.stream().filter(s -> s.getKind() == SpanKind.SERVER).findFirst().orElseThrow();
    assertThat(request.getName()).isEqualTo("chat smart");
    assertThat(request.getTraceId()).isEqualTo(TRACE_ID);
    assertThat(request.getParentSpanId()).isEqualTo(PARENT);
    assertThat(request.getAttributes().get(AttributeKey.stringKey("gen_ai.request.model"))).isEqualTo("smart");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("gen_ai.response.model"))).isEqualTo("claude-sonnet-4-5");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("levee.target"))).isEqualTo("emu/claude-sonnet-4-5");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("levee.tier"))).isEqualTo("T0");
    assertThat(request.getAttributes().get(AttributeKey.stringKey("levee.outcome"))).isEqualTo("ok");
    assertThat(request.getAttributes().get(AttributeKey.booleanKey("levee.fallback"))).isTrue();
    assertThat(request.getAttributes().get(AttributeKey.longKey("gen_ai.usage.input_tokens"))).isPositive();
    assertThat(request.getAttributes().get(AttributeKey.longKey("gen_ai.usage.output_tokens"))).isPositive();

    List<SpanData> children = spans.stream().filter(s -> s.getParentSpanId().equals(request.getSpanId())).toList();
    assertThat(children).extracting(SpanData::getName).containsExactly(
        "attempt emu/emu-529", "backoff", "attempt emu/emu-529", "backoff", "attempt emu/emu-529",
        "attempt emu/claude-sonnet-4-5");
    SpanData failed = children.getFirst();
    assertThat(failed.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(failed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(failed.getAttributes().get(AttributeKey.stringKey("levee.outcome"))).isEqualTo("overloaded");
    assertThat(children.getLast().getAttributes().get(AttributeKey.stringKey("levee.outcome"))).isEqualTo("success");
    for (int i = 1; i < children.size(); i++) {
      assertThat(children.get(i).getStartEpochNanos()).as("laid out in order")
          .isGreaterThanOrEqualTo(children.get(i - 1).getEndEpochNanos());
    }
    assertThat(children.getLast().getEndEpochNanos()).isLessThanOrEqualTo(request.getEndEpochNanos());
    assertThat(children.getFirst().getStartEpochNanos()).isGreaterThanOrEqualTo(request.getStartEpochNanos());
  }

  @Test
  void offByDefault() {
    assertThat(Tracing.fromEnvironment(name -> null).enabled()).isFalse();
    assertThat(Tracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "none")::get).enabled()).isFalse();
    try (Tracing on = Tracing.fromEnvironment(Map.of("OTEL_TRACES_EXPORTER", "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")::get)) {
      assertThat(on.enabled()).isTrue();
    }
  }
}
