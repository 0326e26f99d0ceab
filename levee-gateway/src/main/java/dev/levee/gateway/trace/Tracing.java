package dev.levee.gateway.trace;

import dev.levee.core.chain.AttemptRecord;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * Traces of client requests through OpenTelemetry, off by default: one {@code SERVER} span per
 * client request, a child span per attempt and per backoff wait, written by the Recorder stage
 * from what the request came to (the spans are given their real start times, laid out from the
 * chain's steps: each step's wait, then its call).
 *
 * <p>Attributes follow the OpenTelemetry GenAI semantic conventions ({@code gen_ai.operation.name},
 * {@code gen_ai.provider.name}, {@code gen_ai.request.model}, {@code gen_ai.response.model},
 * {@code gen_ai.usage.input_tokens}, {@code gen_ai.usage.output_tokens}) plus Levee's ({@code
 * levee.target}, {@code levee.outcome}, {@code levee.tier}, {@code levee.fallback}, {@code
 * levee.recoveries}, {@code levee.feature}). A W3C {@code traceparent} (and {@code tracestate})
 * from the client makes the request span its child; the header itself reaches the upstream
 * unchanged with the rest of the client's headers (DESIGN.md promise 1).
 *
 * <p>Turned on by the environment, as the OpenTelemetry SDK specifies: {@code
 * OTEL_TRACES_EXPORTER=otlp} exports over OTLP/HTTP to {@code OTEL_EXPORTER_OTLP_ENDPOINT}
 * (default {@code http://localhost:4318}) with service name {@code OTEL_SERVICE_NAME} (default
 * {@code levee-gateway}). Thread-safe.
 */
public final class Tracing implements AutoCloseable {

  /** No traces. */
  public static final Tracing OFF = new Tracing(null, null);

  private static final TextMapGetter<Map<String, List<String>>> HEADERS = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(Map<String, List<String>> carrier) {
      return carrier.keySet();
    }

    @Override
    public String get(Map<String, List<String>> carrier, String key) {
      if (carrier == null) {
        return null;
      }
      for (Map.Entry<String, List<String>> e : carrier.entrySet()) {
        if (e.getKey().equalsIgnoreCase(key) && !e.getValue().isEmpty()) {
          return e.getValue().getFirst();
        }
      }
      return null;
    }
  };

  private final Tracer tracer; // null: off
  private final SdkTracerProvider owned; // closed with this, when this made it

  private Tracing(Tracer tracer, SdkTracerProvider owned) {
    this.tracer = tracer;
    this.owned = owned;
  }

  /** Traces through {@code otel} (tests pass an SDK with an in-memory exporter). */
  public static Tracing of(OpenTelemetry otel) {
    return new Tracing(otel.getTracer("dev.levee.gateway"), null);
  }

  /** From the environment (see the class comment); {@link #OFF} unless {@code OTEL_TRACES_EXPORTER=otlp}. */
  public static Tracing fromEnvironment(Function<String, String> env) {
    if (!"otlp".equalsIgnoreCase(env.apply("OTEL_TRACES_EXPORTER"))) {
      return OFF;
    }
    String endpoint = env.apply("OTEL_EXPORTER_OTLP_ENDPOINT");
    String base = endpoint == null || endpoint.isBlank() ? "http://localhost:4318" : endpoint.replaceAll("/+$", "");
    String service = env.apply("OTEL_SERVICE_NAME");
    SdkTracerProvider provider = SdkTracerProvider.builder()
        .setResource(Resource.getDefault().merge(Resource.create(io.opentelemetry.api.common.Attributes.of(
            AttributeKey.stringKey("service.name"), service == null || service.isBlank() ? "levee-gateway" : service))))
        .addSpanProcessor(BatchSpanProcessor.builder(
            OtlpHttpSpanExporter.builder().setEndpoint(base + "/v1/traces").build()).build())
        .build();
    OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(provider).build();
    return new Tracing(sdk.getTracer("dev.levee.gateway"), provider);
  }

  public boolean enabled() {
    return tracer != null;
  }

  /** Writes the spans of one client request that ends now. */
  public void record(RequestTrace r) {
    if (tracer == null) {
      return;
    }
    Instant end = Instant.now();
    Instant start = end.minus(r.took());
    Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), r.headers(), HEADERS);
    Span request = tracer.spanBuilder("chat " + r.alias()).setParent(parent).setSpanKind(SpanKind.SERVER)
        .setStartTimestamp(start)
        .setAttribute("gen_ai.operation.name", "chat")
        .setAttribute("gen_ai.provider.name", "anthropic")
        .setAttribute("gen_ai.request.model", r.alias())
        .setAttribute("levee.feature", r.feature())
        .setAttribute("levee.tier", r.tier().name())
        .setAttribute("levee.outcome", r.outcome())
        .setAttribute("levee.fallback", r.fallback())
        .setAttribute("levee.recoveries", (long) r.recoveries())
        .setAttribute("http.response.status_code", (long) r.status())
        .startSpan();
    if (r.target() != null) {
      if (r.status() < 400) { // the model that generated the answer; a refusal names its target alone
        request.setAttribute("gen_ai.response.model", r.target().model());
      }
      request.setAttribute("levee.target", r.target().id());
    }
    if (!r.usage().isEmpty()) {
      request.setAttribute("gen_ai.usage.input_tokens", r.usage().input());
      request.setAttribute("gen_ai.usage.output_tokens", r.usage().output());
    }
    if (r.status() >= 500) {
      request.setStatus(StatusCode.ERROR, r.outcome());
    }
    Context inRequest = parent.with(request);
    Instant at = start;
    for (AttemptRecord step : r.steps()) {
      if (!step.waited().isZero()) {
        Instant waitEnd = min(at.plus(step.waited()), end);
        tracer.spanBuilder("backoff").setParent(inRequest).setStartTimestamp(at)
            .setAttribute("levee.target", step.target().id())
            .setAttribute("levee.wait_ms", step.waited().toMillis()).startSpan().end(waitEnd);
        at = waitEnd;
      }
      Instant callEnd = min(at.plus(step.took()), end);
      Span attempt = tracer.spanBuilder("attempt " + step.target().id()).setParent(inRequest)
          .setSpanKind(SpanKind.CLIENT).setStartTimestamp(at)
          .setAttribute("gen_ai.request.model", step.target().model())
          .setAttribute("levee.target", step.target().id())
          .setAttribute("levee.outcome", outcome(step))
          .startSpan();
      if (step.failure() != null) {
        attempt.setAttribute("error.type", step.failure().kind().name().toLowerCase(Locale.ROOT));
        attempt.setStatus(StatusCode.ERROR, step.failure().toString());
      }
      attempt.end(callEnd);
      at = callEnd;
    }
    request.end(end);
  }

  private static String outcome(AttemptRecord step) {
    return switch (step.step()) {
      case ANSWERED -> "success";
      case FAILED -> step.failure().kind().name().toLowerCase(Locale.ROOT);
      case SKIPPED_OPEN -> "skipped_open";
      case BUDGET_DENIED -> "budget_denied";
      case DEADLINE -> "deadline";
      case OVER_MAX_RETRY_AFTER -> "over_max_retry_after";
      case CANCELLED -> "cancelled"; // a hedged pair's loser
    };
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
  }

  @Override
  public void close() {
    if (owned != null) {
      owned.shutdown().join(5, TimeUnit.SECONDS);
    }
  }

  /** For logs: whether traces go out and where. */
  @Override
  public String toString() {
    return tracer == null ? "tracing off" : "tracing on";
  }
}
