package dev.levee.cli.drill;

import java.time.Duration;
import java.util.Locale;

/**
 * The published weekly drill, in drill time (seconds of the drill's clock, which {@code --speed}
 * may compress): {@code warmUp} of calm, then a storm of 429s on every model for {@code storm},
 * then recovery; a repeating mix of {@code mix} questions at {@code rate} requests per second
 * throughout. It asserts the tier is at T2 or below within {@code tierBound} of the storm's
 * start, the cache answers at least {@code hitRateBound} of the requests asked during the storm,
 * and the tier is back at T0 within {@code recoveryBound} of its end (issue 4's drill,
 * docs/degradation.md).
 *
 * @param warmUp calm before the storm, filling the cache (default 60 s)
 * @param storm the storm's length ({@code --duration}, default 180 s)
 * @param stormShare the share of upstream calls the storm answers 429, 0 &lt; share &le; 1 (default 1)
 * @param retryAfter the storm's {@code retry-after} (default 1 s)
 * @param rate requests per second (default 2)
 * @param mix distinct questions in the repeating mix (default 20)
 * @param alias the alias the requests ask for ({@code model})
 * @param feature the feature whose tier is read ({@code x-levee-feature}; {@code default} sends none)
 * @param tierBound the most the step down to T2 may take (60 s)
 * @param hitRateBound the least share of storm requests answered from the cache (0.8)
 * @param recoveryBound the most the way back to T0 may take after the storm (300 s)
 * @param settle how long T0 must hold after the storm before the drill ends early (30 s)
 */
public record DrillPlan(Duration warmUp, Duration storm, double stormShare, Duration retryAfter, int rate, int mix,
    String alias, String feature, Duration tierBound, double hitRateBound, Duration recoveryBound, Duration settle) {

  /** The published drill with a storm of {@code storm}, {@code share} of calls, and the given mix. */
  public static DrillPlan published(Duration storm, double share, int rate, int mix, String alias, String feature) {
    return new DrillPlan(Duration.ofSeconds(60), storm, share, Duration.ofSeconds(1), rate, mix, alias, feature,
        Duration.ofSeconds(60), 0.8, Duration.ofSeconds(300), Duration.ofSeconds(30));
  }

  /** How long one request may take, in real time, before the drill counts it failed: 60 s. */
  Duration deadlineAllowance() {
    return Duration.ofSeconds(60);
  }

  long stormStartMs() {
    return warmUp.toMillis();
  }

  long stormEndMs() {
    return warmUp.plus(storm).toMillis();
  }

  /** The latest the drill runs to: the storm's end, the recovery bound and the settling time. */
  long lastMs() {
    return stormEndMs() + recoveryBound.toMillis() + settle.toMillis();
  }

  /**
   * The emulator scenario of the storm (JSON, the scenario file format), its times converted to
   * the emulator's clock: {@code emulatorScale} emulator ms per drill ms.
   */
  String scenario(double emulatorScale) {
    return String.format(Locale.ROOT,
        "{\"seed\":11,\"phases\":[{\"model\":\"*\",\"from\":\"%dms\",\"to\":\"%dms\",\"status\":429,"
            + "\"rate\":%s,\"retry-after\":\"%dms\"}]}",
        Math.round(stormStartMs() * emulatorScale), Math.round(stormEndMs() * emulatorScale), stormShare,
        Math.max(1, Math.round(retryAfter.toMillis() * emulatorScale)));
  }
}
