package dev.levee.gateway.config;

/** What a feature answers at T3 ({@code fail-mode}). */
public enum FailMode {
  /** The default: the feature's static text, as a well-formed message. */
  OPEN,
  /** For features that write user data: 503 with {@code retry-after} and the client's input echoed back. */
  CLOSED
}
