package dev.levee.gateway.tier;

import dev.levee.core.chain.Target;
import dev.levee.core.retry.Failure;
import dev.levee.core.retry.FailureKind;
import dev.levee.core.time.ManualClock;
import dev.levee.gateway.config.ConfigLoader;
import dev.levee.gateway.config.GatewayConfig;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Map;

/**
 * Tier boards for tests, in virtual time: a board on a {@link ManualClock} that schedules nothing
 * (it evaluates when the test calls {@link TierBoard#evaluateAll}), wall time the system's; and a
 * client request as the pipeline reports it to the board.
 */
public final class TestBoards {

  /** A 529 {@code overloaded_error}, as the upstream answers one. */
  public static final Failure OVERLOADED = Failure.of(FailureKind.OVERLOADED, 529, "overloaded_error", "busy");

  /**
   * A config with one alias, {@code ok2} = [emu/claude-3-haiku], on an upstream {@code emu}
   * nothing listens at: every other name a client sends is one of its own (a client scope).
   */
  static final String OK2_CONFIG = """
      upstreams:
        emu: { url: "http://127.0.0.1:1" }
      models:
        ok2: { chain: [emu/claude-3-haiku] }
      """;

  /** The most call windows of client-named targets a board keeps (besides the configured ones' and each upstream's shared one). */
  public static final int MAX_OTHER_WINDOWS = TargetWindows.MAX_OTHERS;

  private TestBoards() {}

  /** The scopes {@code board} holds now, configured aliases' included. */
  public static int scopes(TierBoard board) {
    return board.scopeCount();
  }

  /** The call windows {@code board} holds now, configured targets' included. */
  public static int windows(TierBoard board) {
    return board.windowCount();
  }

  /** A board for the gateway config {@code yaml} ({@code upstreams:}, {@code models:} …; no variables) on {@code clock}. */
  public static TierBoard board(String yaml, ManualClock clock) throws Exception {
    GatewayConfig config = new ConfigLoader(Map.<String, String>of()::get).parse(yaml, "test.yaml");
    return new TierBoard(config, clock, clock, InstantSource.system(), (delay, task) -> () -> { });
  }

  /**
   * One client request of feature {@code default} to {@code model} (the target {@code emu/model}):
   * answered, or failed with a 529; 5 ms either way.
   */
  static void request(TierBoard board, String model, boolean fail) {
    Target target = new Target("emu", model);
    board.tier("default", model, List.of(target));
    if (fail) {
      board.onFailure(target, OVERLOADED, Duration.ofMillis(5));
      board.failed("default", model, Duration.ofMillis(5));
    } else {
      board.onSuccess(target, Duration.ofMillis(5));
      board.answered("default", model, null);
    }
  }
}
