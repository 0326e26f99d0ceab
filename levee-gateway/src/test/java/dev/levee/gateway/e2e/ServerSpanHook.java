package dev.levee.gateway.e2e;

import dev.levee.gateway.Gateway;
import dev.levee.gateway.GatewayClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.trace.Tracing;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SpanProcessor;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A gateway whose stage 6 a test can hold or fail: the request's server span ends in the {@code
 * Recorder}'s books, and a span processor runs the test's hook there.
 */
final class ServerSpanHook {

  private ServerSpanHook() {}

  /**
   * A gateway with one alias {@code s} in front of {@code upstream} (its target {@code fake/a}),
   * its job store in {@code queueFolder}, whose stage 6 runs {@code onRequestSpanEnd} as it traces
   * each request.
   */
  static Gateway gateway(ScriptedUpstream upstream, Path queueFolder, Consumer<ReadableSpan> onRequestSpanEnd)
      throws Exception {
    SpanProcessor stageSix = new SpanProcessor() {
      @Override
      public void onStart(Context parentContext, ReadWriteSpan span) {}

      @Override
      public boolean isStartRequired() {
        return false;
      }

      @Override
      public void onEnd(ReadableSpan span) {
        if (span.getKind() == SpanKind.SERVER) {
          onRequestSpanEnd.accept(span);
        }
      }

      @Override
      public boolean isEndRequired() {
        return true;
      }
    };
    OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
        .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(stageSix).build()).build();
    String yaml = "server: { port: 0 }\nupstreams:\n" + upstream.upstream("fake")
        + "models:\n  s:\n    chain: [fake/a]\n"
        + Harness.BASE_POLICY + "queue: { folder: '" + queueFolder + "' }\n";
    return Gateway.start(new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "test.yaml"),
        GatewayClock.system(), Tracing.of(otel));
  }
}
