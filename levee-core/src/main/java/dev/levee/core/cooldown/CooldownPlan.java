package dev.levee.core.cooldown;

import dev.levee.core.chain.Target;
import java.time.Duration;
import java.util.List;
import java.util.Objects;

/** What {@link RateLimitCooldowns#plan} says about a request's targets. */
public sealed interface CooldownPlan {

  /**
   * Go on with {@code targets}, after sitting out {@code waitFirst} (zero unless every target was
   * cooling and the earliest one's remaining time fits the deadline).
   *
   * @param targets the targets to try, in the chain's order, cooling ones left out (never empty)
   * @param waitFirst how long to wait first; zero when a target is ready now
   * @param skipped the cooling targets left out, for logs
   */
  record Go(List<Target> targets, Duration waitFirst, List<Target> skipped) implements CooldownPlan {
    public Go {
      targets = List.copyOf(targets);
      skipped = List.copyOf(skipped);
      Objects.requireNonNull(waitFirst, "waitFirst");
      if (targets.isEmpty()) throw new IllegalArgumentException("a plan needs a target");
    }
  }

  /**
   * Every target cools past the deadline: answer 429 at once.
   *
   * @param target the target that is ready first
   * @param retryAfter when it is ready, for the client's {@code retry-after}
   */
  record Refuse(Target target, Duration retryAfter) implements CooldownPlan {
    public Refuse {
      Objects.requireNonNull(target, "target");
      Objects.requireNonNull(retryAfter, "retryAfter");
    }
  }
}
