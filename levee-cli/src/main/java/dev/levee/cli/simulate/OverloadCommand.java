package dev.levee.cli.simulate;

import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.sim.report.OverloadChart;
import dev.levee.sim.report.StudyTables;
import dev.levee.sim.report.Table;
import dev.levee.sim.study.BudgetSetting;
import dev.levee.sim.study.OverloadStudy;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee simulate overload}: the same policies against an upstream of finite capacity whose
 * capacity drops for a while; prints loss, amplification, time to recover and p99 latency per
 * policy, and with {@code --chart FILE} writes a self-contained SVG of load, goodput and guard
 * tokens over time.
 */
@Command(
    name = "overload",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Compare retry policies when retries feed back into an overloaded upstream.",
    description = "The upstream serves at most --capacity calls/s, answers 529 beyond that, and a 529 costs it "
        + "--reject-cost of a call. A capacity drop (the trigger) starts the storm. A legend under the table explains "
        + "the columns.")
public final class OverloadCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  StudyOptions common;

  @Option(names = "--rate", defaultValue = "80", description = "requests per second (default: ${DEFAULT-VALUE})")
  double rate;

  @Option(names = "--horizon", defaultValue = "420", description = "seconds of arrivals (default: ${DEFAULT-VALUE})")
  double horizon;

  @Option(names = "--warmup", defaultValue = "120", description = "seconds of arrivals left out of the table (default: ${DEFAULT-VALUE})")
  double warmup;

  @Option(names = "--capacity", defaultValue = "100", description = "upstream calls served per second (default: ${DEFAULT-VALUE})")
  double capacity;

  @Option(names = "--trigger-capacity", defaultValue = "50", description = "calls served per second during the trigger (default: ${DEFAULT-VALUE})")
  double triggerCapacity;

  @Option(names = "--trigger-start", defaultValue = "150", description = "trigger start, seconds (default: ${DEFAULT-VALUE})")
  double triggerStart;

  @Option(names = "--trigger-end", defaultValue = "180", description = "trigger end, seconds (default: ${DEFAULT-VALUE})")
  double triggerEnd;

  @Option(names = "--reject-cost", defaultValue = "0.3",
      description = "capacity a 529 costs the next second, in served calls; 0 = rejections are free (default: ${DEFAULT-VALUE})")
  double rejectCost;

  @Option(names = "--success-latency", defaultValue = "1", description = "seconds a successful call takes (default: ${DEFAULT-VALUE})")
  double successLatency;

  @Option(names = "--failure-latency", defaultValue = "0.1", description = "seconds until a 529 returns (default: ${DEFAULT-VALUE})")
  double failureLatency;

  @Option(names = "--budget", defaultValue = "100/0.1", description = "retry budget max/ratio (default: ${DEFAULT-VALUE})")
  String budget;

  @Option(names = "--breaker-profile", defaultValue = "default",
      description = "circuit-breaker profile: default, batch, interactive, admin (default: ${DEFAULT-VALUE})")
  String breakerProfile;

  @Option(names = "--throttle-k", defaultValue = "2", description = "adaptive throttling K, SRE book (default: ${DEFAULT-VALUE})")
  double throttleK;

  @Option(names = "--throttle-window", defaultValue = "120", description = "adaptive throttling history, seconds (default: ${DEFAULT-VALUE})")
  double throttleWindow;

  @Option(names = "--grpc-max-tokens", defaultValue = "10", description = "gRFC A6 max tokens (default: ${DEFAULT-VALUE})")
  double grpcMaxTokens;

  @Option(names = "--grpc-token-ratio", defaultValue = "0.1", description = "gRFC A6 token ratio (default: ${DEFAULT-VALUE})")
  double grpcTokenRatio;

  @Option(names = "--chart", paramLabel = "FILE", description = "write an SVG chart of load, goodput and tokens over time to FILE")
  Path chart;

  @Override
  public Integer call() {
    OverloadStudy study;
    try {
      study = new OverloadStudy(common.seed, rate, horizon, warmup, common.maxAttempts, capacity, triggerCapacity, triggerStart,
          triggerEnd, rejectCost, successLatency, failureLatency, common.immediateDelay, common.backoffBase, common.backoffCap,
          BudgetSetting.parse(budget), CircuitBreakerConfig.profile(breakerProfile), throttleK, throttleWindow,
          grpcMaxTokens, grpcTokenRatio);
      study.policies(); // validates the policy settings
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<OverloadStudy.Row> rows = study.run();
    PrintWriter out = spec.commandLine().getOut();
    if (common.format == Table.Format.TABLE) {
      out.printf(Locale.ROOT, "overload study: %s req/s, capacity %s/s dropping to %s/s during [%s s, %s s), "
              + "a 529 costs %s of a call; %d requests counted after a %s s warm-up, seed %d%n%n",
          StudyOptions.n(rate), StudyOptions.n(capacity), StudyOptions.n(triggerCapacity),
          StudyOptions.n(triggerStart), StudyOptions.n(triggerEnd), StudyOptions.n(rejectCost),
          rows.get(0).stats().requests(), StudyOptions.n(warmup), common.seed);
    }
    out.print(StudyTables.overload(rows).render(common.format));
    if (common.format == Table.Format.TABLE) {
      out.print(legend(study, rows.get(0).stats().requests()));
    }
    out.flush();
    if (chart != null) {
      try {
        Path parent = chart.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        Files.writeString(chart, OverloadChart.svg(study, rows), StandardCharsets.UTF_8);
      } catch (IOException e) {
        String why = switch (e) {
          case AccessDeniedException denied -> "permission denied";
          case NoSuchFileException missing -> "no such file or directory";
          case FileSystemException fs when fs.getReason() != null -> fs.getReason();
          default -> e.getClass().getSimpleName();
        };
        spec.commandLine().getErr().println("levee simulate overload: cannot write " + chart + ": " + why);
        return 1;
      }
      spec.commandLine().getErr().println("chart written to " + chart);
    }
    return 0;
  }

  /**
   * What each column of the table means, with its unit, for {@code study}'s parameters and the
   * {@code counted} requests (newcomer trial, session 12: no legend, and a p99 of exactly 1.00 s
   * for five of seven policies read as a cap).
   */
  static String legend(OverloadStudy study, long counted) {
    String success = StudyOptions.n(study.successLatency());
    return String.format(Locale.ROOT, """

        policy         immediate retry: waits %s s before each retry; full jitter: waits U(0,1) x min(%s, %s x 2^n) s
                       after n attempts; the others add full jitter behind a guard: a retry budget (max/ratio), a
                       circuit breaker, both, client-side adaptive throttling (SRE book) or gRPC retry throttling (gRFC A6)
        loss           requests that never succeeded, %% of the %d counted after the %s s warm-up
        amp            amplification: upstream calls per request (1.00: no retries)
        recovery       seconds from the trigger's end (%s s) to the first whole second from which no call failed and
                       no request was lost; never: the overload outlived its trigger (a metastable failure)
        p99 latency    99th percentile of the successful requests' time from arrival to success (s). A successful
                       call takes %s s (--success-latency), so a request its first call answered takes exactly %s s:
                       a p99 of %s s means at least 99%% of the successes needed no retry: retries rarely turned
                       a failure into a success (immediate retry) or were refused (budget, breaker, gRPC throttle);
                       the requests that did not succeed are in loss, not here. Above it, retries and their waits
                       show. Nothing caps it: the study has no deadline, only --max-attempts %d.
        529s           upstream calls that failed: the upstream was over capacity and answered 529 (count)
        local rejects  requests lost because the breaker or the adaptive throttle refused an attempt (count)
        denied         requests lost because the retry budget or the gRPC throttle refused a retry (count)
        """, StudyOptions.n(study.immediateDelay()), StudyOptions.n(study.backoffCap()),
        StudyOptions.n(study.backoffBase()), counted, StudyOptions.n(study.warmup()), StudyOptions.n(study.triggerEnd()),
        success, success, String.format(Locale.ROOT, "%.2f", study.successLatency()), study.maxAttempts());
  }
}
