package dev.levee.core.chain;

/**
 * One call to one target, supplied by the protocol layer to {@link FallbackChain#execute}.
 *
 * <p>Implementations make the call within {@link AttemptContext#timeout()}, classify what came
 * back, and return it; they must not retry on their own. A call that was interrupted (the
 * client went away) returns a failure of kind {@code CANCELLED} or throws {@link
 * InterruptedException}.
 *
 * @param <T> the protocol's response (e.g. an upstream HTTP response)
 */
@FunctionalInterface
public interface Attempt<T> {

  AttemptResult<T> call(AttemptContext context) throws InterruptedException;

  /**
   * Drops an answer nobody will use: the call answered, but the other call of its hedged pair had
   * answered first. Close whatever it holds open (a stream's connection). Default: nothing.
   */
  default void discard(T response) {}
}
