package dev.levee.emulator;

/**
 * Response identifiers shaped like the API's: {@code msg_01…} and {@code req_011C…} (base62).
 * Derived from the seed and a counter, so a run is reproducible. Thread-safe.
 */
final class Ids {

  private final long seed;
  private long counter;
  private long controlCounter;

  Ids(long seed) {
    this.seed = seed;
  }

  /** A new {@code msg_} id. */
  String messageId() {
    return "msg_01" + AnswerGenerator.base62(next(), 22);
  }

  /** A new {@code req_} id. */
  String requestId() {
    return "req_011C" + AnswerGenerator.base62(next(), 20);
  }

  /**
   * A new {@code req_} id for an answer of the control endpoints ({@code /_emulator/*}), from a
   * sequence of its own: a harness polling the log does not change the ids the API's answers carry.
   */
  synchronized String controlRequestId() {
    return "req_011C" + AnswerGenerator.base62(new Prng(Prng.hash("control-id", Long.toString(seed),
        Long.toString(controlCounter++))), 20);
  }

  private synchronized Prng next() {
    return new Prng(Prng.hash("id", Long.toString(seed), Long.toString(counter++)));
  }
}
