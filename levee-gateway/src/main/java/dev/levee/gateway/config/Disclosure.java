package dev.levee.gateway.config;

/** How a feature tells clients that an answer is not the full one ({@code disclosure}). */
public enum Disclosure {
  /** Say nothing. */
  NONE,
  /** The default: {@code x-levee-degraded} says why. */
  HEADER,
  /** The header, and a short note at the end of answers Levee serves itself (cached, static). */
  INLINE
}
