package dev.levee.gateway.health;

import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fallback chain's one {@link CallObserver}, telling each of several in turn, each guarded: an
 * observer that throws (a bug in the SLI windows, the router's statistics, metrics) is skipped for
 * that call and tells neither the call nor the observers after it — the chain runs them on the
 * request's thread, in the middle of its retries and settlements, where a throw would fail a
 * request whose answer was fine. {@link CallObserver#both} gives no such guard.
 *
 * <p>An observer's first failure is logged at WARN with its stack trace; later ones only counted
 * through {@code counted}, with {@code observer_<name>} ({@code
 * levee_bookkeeping_failures_total{part}}), so that a broken observer does not log once per call.
 * Only {@link RuntimeException}s are caught.
 *
 * <p>Thread-safe when its observers are.
 */
public final class GuardedObservers implements CallObserver {

  private static final Logger LOG = LoggerFactory.getLogger(GuardedObservers.class);

  /**
   * One observer and the word that names it in the log and the counter.
   *
   * @param name a short fixed word ({@code tiers}, {@code metrics}…): a metrics label
   */
  public record Named(String name, CallObserver observer) {
    public Named {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(observer, "observer");
    }
  }

  /** An observer with its part's name in the log and the counter, {@code observer_<name>}, made once. */
  private record Part(String name, CallObserver observer) {}

  private final List<Part> observers;
  private final GuardedParts parts;

  private GuardedObservers(List<Named> observers, GuardedParts parts) {
    this.observers = observers.stream().map(n -> new Part("observer_" + n.name(), n.observer())).toList();
    this.parts = parts;
  }

  /**
   * Tells {@code observers} in their order, each guarded.
   *
   * @param counted told {@code observer_<name>} at every failure (e.g. {@link Metrics#bookkeepingFailed})
   */
  public static GuardedObservers of(Consumer<String> counted, Named... observers) {
    return new GuardedObservers(List.of(observers), new GuardedParts(counted, (part, e) -> LOG.warn(
        "call observer \"{}\" failed; the call and the other observers went on (logged once; "
            + "levee_bookkeeping_failures_total counts each)", part, e)));
  }

  /** As {@link #of}, its first failures written to {@code warn} (a test's list) instead of the log. */
  static GuardedObservers of(Consumer<String> counted, BiConsumer<String, RuntimeException> warn,
      Named... observers) {
    return new GuardedObservers(List.of(observers), new GuardedParts(counted, warn));
  }

  @Override
  public void onSuccess(Target target, Duration latency) {
    for (Part n : observers) {
      parts.run(n.name(), () -> n.observer().onSuccess(target, latency));
    }
  }

  @Override
  public void onSuccess(Target target, Duration latency, boolean firstToken) {
    for (Part n : observers) {
      parts.run(n.name(), () -> n.observer().onSuccess(target, latency, firstToken));
    }
  }

  @Override
  public void onFailure(Target target, Failure failure, Duration latency) {
    for (Part n : observers) {
      parts.run(n.name(), () -> n.observer().onFailure(target, failure, latency));
    }
  }
}
