package dev.levee.gateway.health;

/**
 * Whether the gateway should receive traffic ({@code GET /health/ready}): not while it is starting,
 * ready once listening, not again once a graceful shutdown began (load balancers stop sending
 * before the drain ends; Kubernetes readiness-probe semantics). Thread-safe.
 */
public final class Readiness {

  /** The states, in the only order they are passed through. */
  public enum State {
    STARTING, READY, DRAINING;

    /** The word on {@code /health/ready}. */
    public String word() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  private volatile State state = State.STARTING;

  /** The gateway listens and has everything it needs. Ignored once draining. */
  public void ready() {
    if (state == State.STARTING) {
      state = State.READY;
    }
  }

  /** A graceful shutdown began; never ready again. */
  public void draining() {
    state = State.DRAINING;
  }

  public State state() {
    return state;
  }

  public boolean isReady() {
    return state == State.READY;
  }
}
