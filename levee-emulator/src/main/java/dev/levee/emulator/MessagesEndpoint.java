package dev.levee.emulator;

import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.stream.PrefillSupport;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * {@code POST /v1/messages}, top to bottom: validate → refuse prefill where the model does →
 * resolve the model's fault → refuse {@code max_tokens} above the model's maximum output →
 * rate limit → scenario phase → first-attempt memory → fault → continuation → {@code max_tokens}
 * → JSON or SSE.
 */
final class MessagesEndpoint {

  /**
   * The error for a refused prefill. Paraphrases the API's 400 ("This model does not support
   * assistant message prefill. ..."), keeping the phrase clients match on.
   */
  private static final ApiError PREFILL_REFUSED = ApiError.invalidRequest(
      "This model does not support assistant message prefill; end the conversation with a user message.");

  /**
   * The header that carries the scenario time a request is judged at, in ms since the start or the
   * last reset (see {@link #incidentTime}).
   */
  static final String INCIDENT_TIME = "x-emulator-incident-ms";

  private final EmulatorState state;
  private final StreamResponder stream;
  private final JsonResponder json;

  MessagesEndpoint(EmulatorState state) {
    this.state = state;
    this.stream = new StreamResponder(state.options.ticker());
    this.json = new JsonResponder(state.options.ticker());
  }

  void handle(Exchange exchange, byte[] body) throws InterruptedException {
    MessagesRequest request;
    switch (MessagesRequest.parse(body, false, exchange.record.anthropicBeta())) {
      case MessagesRequest.Invalid invalid -> {
        exchange.record.request(invalid.model(), invalid.stream(), null);
        exchange.fail(invalid.error());
        return;
      }
      case MessagesRequest.Valid valid -> request = valid.request();
    }
    exchange.record.request(request.model(), request.stream(), request.lastRole());
    if (request.lastRole().equals("assistant") && !PrefillSupport.byDefault(request.model())) {
      exchange.fail(PREFILL_REFUSED);
      return;
    }
    Optional<RateLimitRule.Limited> limited = RateLimitRule.of(request.model());
    String model = limited.map(RateLimitRule.Limited::model).orElse(request.model());
    Optional<FaultSpec> named = FaultSpec.of(model);
    if (named.isEmpty() || (!model.startsWith("emu-") && !state.options.knows(model, state.scenario))) {
      exchange.fail(ApiError.notFound("model: " + request.model()));
      return;
    }
    String tooMany = ModelCatalog.maxTokensRefusal(model, request.model(), request.maxTokens());
    if (tooMany != null) { // the model's maximum output, before rate limits and faults
      exchange.fail(ApiError.invalidRequest(tooMany));
      return;
    }
    state.rateLimits.apply(exchange.response.getHeaders(), request.inputTokens());
    if (limited.isPresent() && !admitted(exchange, request, limited.get().rule())) {
      return;
    }
    ScenarioRuntime.Verdict verdict = state.scenario.decide(request.model(), incidentTime(exchange));
    Timing timing = Timing.of(state.options);
    if (verdict.phase() != null) {
      timing = timing.with(verdict.phase().ttft(), verdict.phase().deltaDelay());
      if (verdict.fails()) {
        failForPhase(exchange, verdict.phase());
        return;
      }
    }
    FaultSpec fault = named.get();
    if (fault.kind() == FaultSpec.Kind.RATE_LIMITED_SEQUENCE) { // emu-429-seq-2-10-30: rising retry-after, then answered
      Optional<Integer> seconds = fault.sequencedRetryAfter(state.memory.attempt(request.model(), request.conversationIdentity()));
      if (seconds.isPresent()) {
        rateLimited(exchange, seconds.get());
        return;
      }
    }
    FaultSpec strikes =
        fault.strikes(() -> state.memory.firstAttempt(request.model(), request.conversationIdentity())) ? fault : null;
    if (strikes != null) {
      switch (strikes.kind()) {
        case OVERLOADED -> {
          exchange.fail(ApiError.overloaded("Overloaded"));
          return;
        }
        case RATE_LIMITED -> {
          rateLimited(exchange, strikes.n());
          return;
        }
        case SERVER_ERROR_ONCE -> {
          exchange.fail(ApiError.api("Internal server error"));
          return;
        }
        case UNAVAILABLE -> {
          exchange.fail(new ApiError(503, ApiError.typeFor(503), "Service unavailable"));
          return;
        }
        case BAD_REQUEST -> {
          exchange.fail(ApiError.invalidRequest("emu-400: this model rejects every request"));
          return;
        }
        case HANG -> {
          exchange.record.action("hang");
          exchange.awaitGone(null);
          exchange.abort("hang");
          return;
        }
        case RESET -> {
          exchange.record.action("reset");
          exchange.reset();
          return;
        }
        case SLOW_TTFT -> {
          timing = timing.with(Duration.ofMillis(strikes.n()), null);
          exchange.record.action("slow-ttft@" + strikes.n());
        }
        case DUP -> exchange.record.action("dup");
        case CUT -> exchange.record.action("cut@" + strikes.n());
        case ERROR_EVENT -> exchange.record.action("error@" + strikes.n());
        case STALL -> exchange.record.action("stall@" + strikes.n());
        case MALFORMED -> exchange.record.action("malformed@" + strikes.n());
        case OK, RATE_LIMITED_SEQUENCE -> { }
      }
    }
    answer(exchange, request, timing, strikes);
  }

  /** Enforces a model-name rate limit (README "Rate limits"); answers 429 and returns false when exceeded. */
  private boolean admitted(Exchange exchange, MessagesRequest request, RateLimitRule rule) {
    RateLimitEnforcer.Verdict verdict =
        state.limits.admit(request.model(), rule, request.inputTokens(), state.elapsed());
    verdict.apply(exchange.response.getHeaders(), Instant.now());
    if (!verdict.admitted()) {
      exchange.response.getHeaders().put("retry-after", Long.toString(verdict.retryAfterSeconds()));
      exchange.fail(ApiError.rateLimited("This request would exceed the rate limit for your organization of "
          + (rule.requests() > 0 ? rule.requests() + " requests" : rule.tokens() + " input tokens") + " per "
          + rule.window().toSeconds() + " seconds. Please retry after " + verdict.retryAfterSeconds() + " seconds."));
    }
    return verdict.admitted();
  }

  private void answer(Exchange exchange, MessagesRequest request, Timing timing, FaultSpec fault)
      throws InterruptedException {
    Continuation continuation = Continuation.resolve(request, state.generator, state.options.continuationOverlap());
    exchange.record.continuation(continuation.kind().label());
    ResponsePlan plan = ResponsePlan.of(continuation.blocks(), request.maxTokens());
    String id = state.ids.messageId();
    if (request.stream()) {
      stream.respond(exchange, StreamPlan.of(id, request.model(), request.inputTokens(), plan), timing, fault);
    } else {
      byte[] message = Json.bytes(MessageJson.message(id, request.model(), request.inputTokens(), plan));
      json.respond(exchange, message, StreamPlan.deltaCount(plan), timing, fault);
    }
  }

  private static void rateLimited(Exchange exchange, long seconds) {
    exchange.response.getHeaders().put("retry-after", Long.toString(seconds));
    RateLimitHeaders.limited(exchange.response.getHeaders(), seconds);
    exchange.fail(ApiError.rateLimited("This request would exceed your organization's rate limit. "
        + "Please retry after " + seconds + " seconds."));
  }

  private static void failForPhase(Exchange exchange, Scenario.Phase phase) {
    switch (phase.status()) {
      case 429 -> {
        long seconds = (phase.retryAfter().toMillis() + 999) / 1000;
        exchange.response.getHeaders().put("retry-after", Long.toString(seconds));
        RateLimitHeaders.limited(exchange.response.getHeaders(), seconds);
        exchange.fail(ApiError.rateLimited("This request would exceed your organization's rate limit. "
            + "Please retry after " + seconds + " seconds."));
      }
      case 500 -> exchange.fail(ApiError.api("Internal server error"));
      case 503 -> exchange.fail(new ApiError(503, ApiError.typeFor(503), "Service unavailable"));
      default -> exchange.fail(ApiError.overloaded("Overloaded"));
    }
  }

  /**
   * The scenario time {@code exchange}'s request is judged at: the {@value #INCIDENT_TIME} it
   * carries (a drill sends each request's nominal send time, so that a CPU-starved machine that
   * delivers it late does not move it out of its phase), else — the header absent, or not a
   * whole number of ms ≥ 0 — the time since the start or the last reset. Rate limits and the log
   * keep the arrival time.
   */
  private Duration incidentTime(Exchange exchange) {
    String carried = exchange.request.getHeaders().get(INCIDENT_TIME);
    if (carried != null) {
      try {
        long ms = Long.parseLong(carried.strip());
        if (ms >= 0) {
          return Duration.ofMillis(ms);
        }
      } catch (NumberFormatException notATime) {
        // judged at its arrival
      }
    }
    return state.elapsed();
  }
}
