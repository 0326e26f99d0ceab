package dev.levee.emulator;

import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fault a model name asks for (see README "Faults by model name").
 *
 * <p>Grammar: {@code emu-<fault>[-always][-noprefill]} (suffixes in any order). A name not starting
 * with {@code emu-} is healthy; {@code emu-} followed by anything else is an unknown model.
 *
 * @param kind the fault
 * @param n the number in the name: deltas for mid-stream faults, ms for {@code slow-ttft}, seconds
 *     of {@code retry-after} for {@code 429-ra}; 0 when the name has none
 * @param always whether {@code -always} makes a first-attempt fault fire on every attempt
 * @param sequence for {@code 429-seq-<s>-<s>...}: the {@code retry-after} seconds of the 1st, 2nd, ...
 *     attempt of a conversation; later attempts are answered (empty for every other fault)
 */
record FaultSpec(Kind kind, int n, boolean always, java.util.List<Integer> sequence) {

  FaultSpec(Kind kind, int n, boolean always) {
    this(kind, n, always, java.util.List.of());
  }

  /** The 429 {@code retry-after} (s) of the 0-based {@code attempt} of a conversation, or empty when it is answered. */
  Optional<Integer> sequencedRetryAfter(int attempt) {
    return attempt < sequence.size() ? Optional.of(sequence.get(attempt)) : Optional.empty();
  }

  /** The faults. */
  enum Kind {
    OK(false), OVERLOADED(false), RATE_LIMITED(true), RATE_LIMITED_SEQUENCE(false), SERVER_ERROR_ONCE(true), UNAVAILABLE(false),
    HANG(false), RESET(true), BAD_REQUEST(false), SLOW_TTFT(false), DUP(false),
    CUT(true), ERROR_EVENT(true), STALL(true), MALFORMED(true);

    private final boolean firstAttemptOnly;

    Kind(boolean firstAttemptOnly) {
      this.firstAttemptOnly = firstAttemptOnly;
    }

    /** Whether the fault strikes only the first attempt of a conversation (unless {@code -always}). */
    boolean firstAttemptOnly() {
      return firstAttemptOnly;
    }
  }

  static final FaultSpec HEALTHY = new FaultSpec(Kind.OK, 0, false);

  private static final Pattern NUMBERED = Pattern.compile("(slow-ttft|cut|error|stall|malformed)-(\\d{1,9})");
  private static final Pattern RATE_LIMITED = Pattern.compile("429-ra(\\d{1,9})");
  private static final Pattern RATE_LIMITED_SEQUENCE = Pattern.compile("429-seq((?:-\\d{1,6}){1,20})");

  /** The fault of {@code model}, or empty when it starts with {@code emu-} but names no fault. */
  static Optional<FaultSpec> of(String model) {
    if (!model.startsWith("emu-")) {
      return Optional.of(HEALTHY);
    }
    String name = model.substring(4);
    boolean always = false;
    while (true) {
      if (name.endsWith("-noprefill")) {
        name = name.substring(0, name.length() - "-noprefill".length());
      } else if (name.endsWith("-always")) {
        name = name.substring(0, name.length() - "-always".length());
        always = true;
      } else {
        break;
      }
    }
    Kind simple = switch (name) {
      case "ok" -> Kind.OK;
      case "529" -> Kind.OVERLOADED;
      case "500-once" -> Kind.SERVER_ERROR_ONCE;
      case "503" -> Kind.UNAVAILABLE;
      case "hang" -> Kind.HANG;
      case "reset" -> Kind.RESET;
      case "400" -> Kind.BAD_REQUEST;
      case "dup" -> Kind.DUP;
      default -> null;
    };
    if (simple != null) {
      return Optional.of(new FaultSpec(simple, 0, always));
    }
    Matcher retryAfter = RATE_LIMITED.matcher(name);
    if (retryAfter.matches()) {
      return Optional.of(new FaultSpec(Kind.RATE_LIMITED, Integer.parseInt(retryAfter.group(1)), always));
    }
    Matcher sequence = RATE_LIMITED_SEQUENCE.matcher(name);
    if (sequence.matches()) {
      java.util.List<Integer> seconds = java.util.Arrays.stream(sequence.group(1).substring(1).split("-"))
          .map(Integer::parseInt).toList();
      return Optional.of(new FaultSpec(Kind.RATE_LIMITED_SEQUENCE, 0, false, seconds));
    }
    Matcher numbered = NUMBERED.matcher(name);
    if (!numbered.matches()) {
      return Optional.empty();
    }
    Kind kind = switch (numbered.group(1)) {
      case "slow-ttft" -> Kind.SLOW_TTFT;
      case "cut" -> Kind.CUT;
      case "error" -> Kind.ERROR_EVENT;
      case "stall" -> Kind.STALL;
      default -> Kind.MALFORMED;
    };
    return Optional.of(new FaultSpec(kind, Integer.parseInt(numbered.group(2)), always));
  }

  /**
   * Whether this fault strikes an attempt; {@code firstAttempt} (which records the attempt) is
   * asked only for a fault that strikes first attempts only, so healthy models are not remembered.
   */
  boolean strikes(BooleanSupplier firstAttempt) {
    return kind != Kind.OK && kind != Kind.RATE_LIMITED_SEQUENCE && (!kind.firstAttemptOnly() || always || firstAttempt.getAsBoolean());
  }
}
