package dev.levee.emulator;

import dev.levee.anthropic.server.ServerLimits;
import dev.levee.anthropic.time.SystemClock;
import dev.levee.core.time.Sleeper;
import dev.levee.core.time.Ticker;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;

/**
 * How an {@link Emulator} runs. Immutable; build with {@link #builder()} or take {@link
 * #defaults()}.
 *
 * @param host the address to bind; default {@code 127.0.0.1}
 * @param port the port; default 0 (any free port, see {@link Emulator#port()})
 * @param scenario timed phases of failures and latency, or null for none (the default)
 * @param timeToFirstToken the pause before the first content delta of every answer (and before a
 *     JSON answer); default 20 ms. {@code emu-slow-ttft-<ms>} and scenario phases override it
 * @param deltaDelay the pause before every further content delta (a JSON answer waits this long
 *     per delta it would have streamed); default 2 ms
 * @param pingInterval how often a stalled stream ({@code emu-stall-<n>}) sends a {@code ping}
 *     event while it withholds content; default 5 s; {@link Duration#ZERO} sends none
 * @param seed mixed into every answer, id and nothing else; default 0. Same seed, same answers
 * @param continuationOverlap how many trailing words of the partial answer a no-prefill
 *     continuation repeats before the remainder; default 2; 0 repeats none
 * @param ticker the time source of scenario phases, log timestamps ({@link LogEntry#atMs()}) and
 *     {@link LogEntry#ttftMs()}; default {@link Ticker#system()}
 * @param sleeper how the emulator pauses for time to first token and delta delays; default {@link
 *     Sleeper#system()}. A {@link dev.levee.core.time.ManualClock} passed as both ticker and
 *     sleeper makes those pauses instant and exactly measurable. Waiting for a client to go away
 *     (hang, stall) always uses real time
 * @param limits connections, header deadline, body rate, concurrency and send timeout, as the
 *     gateway's {@code server.*}; default {@link ServerLimits#DEFAULT}
 * @param faithful whether it refuses what the API refuses and a test double may let pass: a {@code
 *     /v1} request without {@code anthropic-version} (400 {@code invalid_request_error}
 *     "anthropic-version: header is required") or with one the API does not have (400, {@code
 *     anthropic-version: "banana" is not a valid version}; it has {@code 2023-06-01} and {@code
 *     2023-01-01}), and a model name it does not know (404 {@code
 *     not_found_error} "model: &lt;name&gt;"; see {@link #knows}). Default false: Levee's tests name
 *     their models freely ({@code claude-big}, {@code primary}) and send raw requests; {@code levee
 *     emulator} turns it on
 * @param models the model names it knows besides its listed models, when {@code faithful}; default none
 */
public record EmulatorOptions(String host, int port, Scenario scenario, Duration timeToFirstToken, Duration deltaDelay,
    Duration pingInterval, long seed, int continuationOverlap, Ticker ticker, Sleeper sleeper, ServerLimits limits,
    boolean faithful, Set<String> models) {

  public EmulatorOptions {
    Objects.requireNonNull(limits, "limits");
    Objects.requireNonNull(host, "host");
    requireNonNegative(timeToFirstToken, "timeToFirstToken");
    requireNonNegative(deltaDelay, "deltaDelay");
    requireNonNegative(pingInterval, "pingInterval");
    Objects.requireNonNull(ticker, "ticker");
    Objects.requireNonNull(sleeper, "sleeper");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("port must be 0..65535, was " + port);
    }
    if (continuationOverlap < 0) {
      throw new IllegalArgumentException("continuationOverlap must be >= 0, was " + continuationOverlap);
    }
    models = Set.copyOf(models);
  }

  /**
   * Whether {@code model} (a name without a fault, not {@code emu-…}) is a model here: any name
   * unless {@link #faithful}; else one that {@code GET /v1/models} lists, by its alias or dated
   * snapshot ID ({@link ModelCatalog}), one of {@link #models}, or one a phase of {@code playing}
   * (the scenario now played) names.
   */
  boolean knows(String model, ScenarioRuntime playing) {
    return !faithful || models.contains(model) || playing.names(model)
        || ModelCatalog.find(model).isPresent();
  }

  /** All defaults: 127.0.0.1, any free port, no scenario, 20 ms to first token, 2 ms per delta. */
  public static EmulatorOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this record's values. */
  public Builder toBuilder() {
    return new Builder().host(host).port(port).scenario(scenario).timeToFirstToken(timeToFirstToken)
        .deltaDelay(deltaDelay).pingInterval(pingInterval).seed(seed).continuationOverlap(continuationOverlap)
        .ticker(ticker).sleeper(sleeper).limits(limits).faithful(faithful).models(models);
  }

  private static void requireNonNegative(Duration duration, String name) {
    Objects.requireNonNull(duration, name);
    if (duration.isNegative()) {
      throw new IllegalArgumentException(name + " must not be negative, was " + duration);
    }
  }

  /** Mutable builder of {@link EmulatorOptions}; not thread-safe. */
  public static final class Builder {
    private String host = "127.0.0.1";
    private int port;
    private Scenario scenario;
    private Duration timeToFirstToken = Duration.ofMillis(20);
    private Duration deltaDelay = Duration.ofMillis(2);
    private Duration pingInterval = Duration.ofSeconds(5);
    private long seed;
    private int continuationOverlap = 2;
    private Ticker ticker = SystemClock.ticker();
    private Sleeper sleeper = SystemClock.sleeper();
    private ServerLimits limits = ServerLimits.DEFAULT;
    private boolean faithful;
    private Set<String> models = Set.of();

    private Builder() {}

    public Builder host(String host) {
      this.host = host;
      return this;
    }

    public Builder port(int port) {
      this.port = port;
      return this;
    }

    public Builder scenario(Scenario scenario) {
      this.scenario = scenario;
      return this;
    }

    public Builder timeToFirstToken(Duration timeToFirstToken) {
      this.timeToFirstToken = timeToFirstToken;
      return this;
    }

    public Builder deltaDelay(Duration deltaDelay) {
      this.deltaDelay = deltaDelay;
      return this;
    }

    public Builder pingInterval(Duration pingInterval) {
      this.pingInterval = pingInterval;
      return this;
    }

    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    public Builder continuationOverlap(int words) {
      this.continuationOverlap = words;
      return this;
    }

    public Builder ticker(Ticker ticker) {
      this.ticker = ticker;
      return this;
    }

    public Builder sleeper(Sleeper sleeper) {
      this.sleeper = sleeper;
      return this;
    }

    public Builder limits(ServerLimits limits) {
      this.limits = limits;
      return this;
    }

    /** See {@link EmulatorOptions#faithful()}. */
    public Builder faithful(boolean faithful) {
      this.faithful = faithful;
      return this;
    }

    /** The model names known besides the listed ones, when {@link #faithful}. */
    public Builder models(Collection<String> models) {
      this.models = Set.copyOf(models);
      return this;
    }

    /** @throws IllegalArgumentException when a value is out of range (messages name it) */
    public EmulatorOptions build() {
      return new EmulatorOptions(host, port, scenario, timeToFirstToken, deltaDelay, pingInterval, seed,
          continuationOverlap, ticker, sleeper, limits, faithful, models);
    }
  }
}
