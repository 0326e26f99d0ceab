package dev.levee.gateway.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.levee.core.chain.CallObserver;
import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The chain's observers, each guarded: one that throws breaks neither the call (nothing reaches
 * the chain) nor the observers after it, and is warned of once however many calls it fails.
 */
class GuardedObserversTest {

  private static final Target TARGET = new Target("emu", "claude-x");
  private static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy");

  private final List<String> told = new ArrayList<>();
  private final List<String> counted = new ArrayList<>();
  private final List<String> warned = new ArrayList<>();

  /** An observer that writes what it is told to {@link #told}. */
  private CallObserver listening(String name) {
    return new CallObserver() {
      @Override
      public void onSuccess(Target target, Duration latency) {
        told.add(name + " success");
      }

      @Override
      public void onSuccess(Target target, Duration latency, boolean firstToken) {
        told.add(name + " success firstToken=" + firstToken);
      }

      @Override
      public void onFailure(Target target, Failure failure, Duration latency) {
        told.add(name + " failure " + failure.kind());
      }
    };
  }

  private static final CallObserver BROKEN = new CallObserver() {
    @Override
    public void onSuccess(Target target, Duration latency) {
      throw new IllegalStateException("window closed");
    }

    @Override
    public void onFailure(Target target, Failure failure, Duration latency) {
      throw new IllegalStateException("window closed");
    }
  };

  private GuardedObservers guarded() {
    return GuardedObservers.of(counted::add, (part, e) -> warned.add(part + ": " + e.getMessage()),
        new GuardedObservers.Named("first", listening("first")), new GuardedObservers.Named("tiers", BROKEN),
        new GuardedObservers.Named("last", listening("last")));
  }

  @Test
  void anObserverThatThrowsBreaksNeitherTheCallNorTheObserversAfterIt() {
    GuardedObservers observers = guarded();

    assertThatCode(() -> {
      observers.onSuccess(TARGET, Duration.ofMillis(5), true);
      observers.onFailure(TARGET, OVERLOADED, Duration.ofMillis(5));
      observers.onSuccess(TARGET, Duration.ofMillis(5));
    }).doesNotThrowAnyException();

    assertThat(told).containsExactly("first success firstToken=true", "last success firstToken=true",
        "first failure OVERLOADED", "last failure OVERLOADED", "first success", "last success");
  }

  @Test
  void aBrokenObserverIsWarnedOfOnceAndCountedAtEveryCall() {
    GuardedObservers observers = guarded();

    for (int call = 0; call < 500; call++) {
      observers.onFailure(TARGET, OVERLOADED, Duration.ofMillis(5));
    }

    assertThat(warned).containsExactly("observer_tiers: window closed");
    assertThat(counted).hasSize(500).containsOnly("observer_tiers");
  }

  /** What {@link CallObserver#both} does, and why the chain's observer is no longer built with it. */
  @Test
  void unguardedAThrowReachesTheCallerAndSkipsTheObserversAfterIt() {
    CallObserver both = CallObserver.both(BROKEN, listening("last"));

    assertThatCode(() -> both.onFailure(TARGET, OVERLOADED, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
    assertThat(told).isEmpty();
  }
}
