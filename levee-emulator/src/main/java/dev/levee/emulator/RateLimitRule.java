package dev.levee.emulator;

import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An enforced rate limit a model name asks for (README "Rate limits"): at most {@code requests}
 * requests and {@code tokens} input tokens per {@code window}; 0 means no limit of that kind.
 *
 * <p>Grammar: the model name ends in {@code -limit-<N>r}, {@code -limit-<T>t} or {@code
 * -limit-<N>r-<T>t}, optionally followed by {@code -per-<S>s} (default 60 s): {@code
 * emu-ok-limit-10r}, {@code emu-ok-limit-5000t-per-10s}, {@code claude-sonnet-4-6-limit-3r-per-5s}.
 * What comes before {@code -limit-} is the model as the fault grammar reads it.
 *
 * @param requests requests allowed per window, 0 for no request limit
 * @param tokens input tokens allowed per window, 0 for no token limit
 * @param window the window's length
 */
record RateLimitRule(int requests, long tokens, Duration window) {

  static final Duration DEFAULT_WINDOW = Duration.ofSeconds(60);

  private static final Pattern SUFFIX =
      Pattern.compile("(.+)-limit(?:-(\\d{1,9})r)?(?:-(\\d{1,12})t)?(?:-per-(\\d{1,6})s)?");

  /**
   * A model name with its limit taken off.
   *
   * @param model the name without the {@code -limit-…} suffix
   * @param rule the limit
   */
  record Limited(String model, RateLimitRule rule) {}

  /** The limit {@code model} asks for, or empty when it has none (or a malformed one: then it is just a name). */
  static Optional<Limited> of(String model) {
    Matcher matcher = SUFFIX.matcher(model);
    if (!matcher.matches() || (matcher.group(2) == null && matcher.group(3) == null)) {
      return Optional.empty();
    }
    int requests = matcher.group(2) == null ? 0 : Integer.parseInt(matcher.group(2));
    long tokens = matcher.group(3) == null ? 0 : Long.parseLong(matcher.group(3));
    long seconds = matcher.group(4) == null ? DEFAULT_WINDOW.toSeconds() : Long.parseLong(matcher.group(4));
    if ((requests == 0 && tokens == 0) || seconds == 0) {
      return Optional.empty();
    }
    return Optional.of(new Limited(matcher.group(1), new RateLimitRule(requests, tokens, Duration.ofSeconds(seconds))));
  }
}
