package dev.levee.anthropic.stream;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.upstream.Cancellation;
import dev.levee.anthropic.upstream.OriginalRequest;
import dev.levee.anthropic.upstream.Reply;
import dev.levee.anthropic.upstream.Upstreams;
import dev.levee.core.chain.ChainResult;
import dev.levee.core.chain.FallbackChain;
import dev.levee.core.chain.Target;
import dev.levee.core.deadline.Deadline;
import dev.levee.core.retry.FailureKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * What recovering one client stream needs, and how one recovery is asked for: the route's
 * targets, the stream settings (recovery window, most recoveries), whether the route recovers at
 * all, which targets accept a prefill, the client's request and its cancel switch, and the chain
 * and upstreams that make the calls. Made by {@link StreamEngine#resilient}; immutable.
 *
 * @param request the client's request (each recovery is built from it and the transcript)
 * @param targets the route's chain, in order
 * @param enabled whether breaks after the commit point are recovered ({@code resume: off} in the
 *     gateway's config ends them with an error event)
 * @param prefill whether a target accepts a final assistant turn (see {@link PrefillSupport})
 */
public record Recovery(OriginalRequest request, List<Target> targets, boolean enabled, StreamSettings settings,
    Predicate<Target> prefill, Cancellation cancellation, FallbackChain chain, Upstreams upstreams) {

  public Recovery {
    Objects.requireNonNull(request, "request");
    targets = List.copyOf(targets);
    Objects.requireNonNull(settings, "settings");
    Objects.requireNonNull(prefill, "prefill");
    Objects.requireNonNull(cancellation, "cancellation");
    Objects.requireNonNull(chain, "chain");
    Objects.requireNonNull(upstreams, "upstreams");
  }

  /**
   * The targets to ask, in order, after {@code broken} broke with {@code kind}. A target that cut
   * or stalled (CONNECTION, TIMEOUT) goes last: another target that can continue is asked first
   * (issue 10, "hand off quickly"), and the chain retries the broken one only as the last left.
   * After any other break (a retryable in-band error, a malformed event), or with {@code kind}
   * null (nothing broke: an answer goes on), the target is asked first, then the rest of the chain
   * in order.
   */
  public List<Target> order(Target broken, FailureKind kind) {
    List<Target> others = new ArrayList<>(targets);
    others.remove(broken);
    List<Target> order = new ArrayList<>(others.size() + 1);
    boolean silent = kind == FailureKind.CONNECTION || kind == FailureKind.TIMEOUT;
    if (!silent) {
      order.add(broken);
    }
    order.addAll(others);
    if (silent) {
      order.add(broken);
    }
    return order;
  }

  /** Whether {@code target} is asked by prefilling the partial answer (else by a user turn). */
  boolean prefills(Target target) {
    return prefill.test(target);
  }

  /**
   * The output tokens a continuation may still ask for after the client's answer has cost {@code
   * spent}: the request's {@code max_tokens} ({@link OriginalRequest#maxTokens()}) minus {@code
   * spent}; 0 or less when nothing is left; {@link Long#MAX_VALUE} when the request has no integral
   * {@code max_tokens} (no upstream answers such a request, so no stream of one breaks).
   */
  long outputTokensLeft(long spent) {
    long max = request.maxTokens();
    return max < 0 ? Long.MAX_VALUE : max - spent;
  }

  /**
   * Asks {@code order}'s targets, through the chain, to continue {@code transcript}, within a fresh
   * recovery window, one retry-budget token per call (a recovery is a retry) and the breakers; each
   * call asks for the {@code max_tokens} left after {@code spent} output tokens ({@link RecoveryRequest}).
   *
   * <p>Every wait of the chain (backoff, retry-after) is cut short when the client goes away: the
   * calling thread is interrupted by the {@link #cancellation} for as long as the recovery runs,
   * so a disconnect during a recovery's backoff ends it at once ({@link ChainResult.Cancelled}).
   */
  ChainResult<Reply> ask(List<Target> order, List<ObjectNode> transcript, long spent) {
    Deadline window = Deadline.after(settings.recoveryWindow(), upstreams.ticker());
    StreamAttempt attempt = new StreamAttempt(upstreams, t -> upstreams.request(request, t,
        RecoveryRequest.build(request.bodyFor(t.model()), t.model(), transcript, prefills(t), spent)), settings,
        cancellation);
    Thread self = Thread.currentThread();
    AutoCloseable wake = cancellation.register(self::interrupt);
    try {
      return chain.execute(order, window, true, attempt);
    } finally {
      try {
        wake.close();
      } catch (Exception ignored) {
        // unregistering cannot fail
      }
      Thread.interrupted(); // an interrupt meant for the recovery must not leak into the relay
    }
  }
}
