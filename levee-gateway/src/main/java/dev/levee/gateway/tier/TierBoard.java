package dev.levee.gateway.tier;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.sli.SliOutcome;
import dev.levee.core.sli.SlidingWindow;
import dev.levee.core.slo.SloTracker;
import dev.levee.core.tier.Priority;
import dev.levee.core.tier.SliReading;
import dev.levee.core.tier.Tier;
import dev.levee.core.tier.TierController;
import dev.levee.core.tier.TierControllerConfig;
import dev.levee.core.tier.TierDecider;
import dev.levee.core.tier.TierTransition;
import dev.levee.core.time.Scheduler;
import dev.levee.core.time.Ticker;
import dev.levee.gateway.config.Feature;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The degradation tier of every feature, decided from live SLIs: one {@link TierController} per
 * feature, all reading the overall SLI window (every upstream call, default one minute) and the SLO
 * tracker (error-budget burn over 1 h and 5 min). Transitions are logged, counted, kept for
 * {@code /admin/tiers} and {@code /health}, and posted to the optional webhook.
 *
 * <p>Features differ by priority and configuration, not by traffic: the tiers follow the health
 * of the upstream as a whole. Thread-safe.
 */
public final class TierBoard implements CallObserver, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TierBoard.class);

  private final SlidingWindow window;
  private final SloTracker slo;
  private final Map<String, TierController> controllers = new TreeMap<>();
  private final Map<String, TierTransition> lastTransition = new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong transitions = new java.util.concurrent.atomic.AtomicLong();
  private final Ticker ticker;
  private final InstantSource wall;
  private final Webhook webhook;
  private final Scheduler scheduler;
  private final Duration every;
  private volatile Scheduler.Scheduled next;
  private volatile boolean closed;

  /**
   * @param scheduler evaluates every feature each {@code tiers.evaluate-every} (a {@code
   *     ManualClock} in tests: evaluations happen as virtual time passes)
   */
  public TierBoard(GatewayConfig config, Ticker ticker, InstantSource wall, Scheduler scheduler) {
    this.ticker = ticker;
    this.wall = wall;
    this.window = new SlidingWindow(config.tiers().window(), 12, ticker);
    this.slo = new SloTracker(config.tiers().slo(), ticker);
    this.webhook = config.tiers().webhook().isEmpty() ? null : new Webhook(config.tiers().webhook());
    TierControllerConfig controllerConfig = new TierControllerConfig(config.tiers().evaluateEvery(),
        config.tiers().healthyFor(), TierControllerConfig.DEFAULT.settleAfterDown());
    TierDecider decider = new TierDecider();
    Map<String, Feature> features = new TreeMap<>(config.features());
    features.putIfAbsent(Feature.DEFAULT_NAME, config.feature(null));
    features.forEach((name, feature) -> {
      TierController controller = new TierController(name, feature.priority(),
          decider, this::reading, controllerConfig, ticker);
      controller.onTransition(this::transitioned);
      controllers.put(name, controller);
    });
    this.scheduler = scheduler;
    this.every = config.tiers().evaluateEvery();
    next = scheduler.schedule(every, this::tick);
  }

  /** The feature's current tier; unknown features follow {@code default}. */
  public Tier tier(String feature) {
    return controller(feature).current();
  }

  /** The controller of a feature; unknown features get the {@code default} one. */
  public TierController controller(String feature) {
    TierController c = feature == null ? null : controllers.get(feature);
    return c != null ? c : controllers.get(Feature.DEFAULT_NAME);
  }

  /** Whether {@code feature} is configured (the default feature always is). */
  public boolean knows(String feature) {
    return controllers.containsKey(feature);
  }

  /** Evaluates every feature once. */
  public void evaluateAll() {
    controllers.values().forEach(TierController::evaluate);
  }

  /** One scheduled evaluation, then the next one {@code evaluate-every} later. */
  private void tick() {
    if (closed) {
      return;
    }
    try {
      evaluateAll();
    } catch (RuntimeException e) {
      LOG.error("tier evaluation failed", e);
    }
    if (!closed) {
      next = scheduler.schedule(every, this::tick);
    }
  }

  /** The reading every controller decides from. */
  public SliReading reading() {
    return SliReading.of(window.snapshot(), slo);
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    window.record(SliOutcome.SUCCESS, latency);
    slo.record(SliOutcome.SUCCESS);
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    SliOutcome outcome = SliOutcome.of(failure.kind());
    if (outcome != null) {
      window.record(outcome, latency);
      slo.record(outcome);
    }
  }

  private void transitioned(TierTransition t) {
    transitions.incrementAndGet();
    lastTransition.put(t.feature(), t);
    Instant at = wall.instant();
    LOG.warn("tier {} {} -> {}: {}", t.feature(), t.from(), t.to(), t.reason());
    if (webhook != null) {
      webhook.post(t, at);
    }
  }

  /** Transitions so far, all features. */
  public long transitions() {
    return transitions.get();
  }

  /** Every feature's tier, for {@code GET /admin/tiers} and {@code /health}. */
  public ArrayNode status() {
    ArrayNode all = Json.MAPPER.createArrayNode();
    controllers.forEach((name, controller) -> {
      TierController.Status s = controller.status();
      ObjectNode f = all.addObject();
      f.put("feature", name);
      f.put("priority", s.priority().name().toLowerCase(Locale.ROOT));
      f.put("tier", s.current().name());
      f.put("automatic", s.automatic().name());
      f.put("forced_remaining_ms", s.forcedRemaining().toMillis());
      f.put("healthy_for_ms", s.healthyRun().toMillis());
      if (s.lastDecision() != null) {
        f.put("last_reason", s.lastDecision().reason());
      }
      TierTransition t = lastTransition.get(name);
      if (t != null) {
        ObjectNode last = f.putObject("last_transition");
        last.put("from", t.from().name());
        last.put("to", t.to().name());
        last.put("reason", t.reason());
        last.put("ago_ms", (ticker.nanos() - t.atNanos()) / 1_000_000);
      }
    });
    return all;
  }

  @Override
  public void close() {
    closed = true;
    next.cancel();
    if (webhook != null) {
      webhook.close();
    }
  }
}
