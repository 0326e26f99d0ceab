package dev.levee.cli.simulate;

import dev.levee.sim.report.StudyTables;
import dev.levee.sim.report.Table;
import dev.levee.sim.study.BudgetSetting;
import dev.levee.sim.study.RetryBudgetStudy;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code levee simulate retry-budget}: reruns the published retry-budget study with levee-core's
 * RetryBudget and Backoff and prints its table, with a legend under it in the table format (the
 * columns and their units). The defaults are the study's parameters, so with no flags the output
 * reproduces the published table; every parameter can be changed.
 */
@Command(
    name = "retry-budget",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    header = "Compare retry policies with and without a retry budget through an outage.",
    description = {
        "Compares how much extra load retries add and how many requests are lost: immediate retry, backoff with "
            + "full jitter, and full jitter behind each retry budget of --budgets (max tokens / tokens per success). "
            + "The upstream fails every call during an outage, then some calls while degraded; its failures do not "
            + "depend on load (`simulate overload` has load that feeds back).",
        "Defaults reproduce the published table; a legend under it explains the columns."})
public final class RetryBudgetCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Mixin
  StudyOptions common;

  @Option(names = "--rate", defaultValue = "5", description = "requests per second (default: ${DEFAULT-VALUE})")
  double rate;

  @Option(names = "--horizon", defaultValue = "300", description = "seconds of arrivals (default: ${DEFAULT-VALUE})")
  double horizon;

  @Option(names = "--outage-end", defaultValue = "20", description = "every call fails before this second (default: ${DEFAULT-VALUE})")
  double outageEnd;

  @Option(names = "--degraded-end", defaultValue = "120", description = "calls fail with --degraded-fail-rate before this second (default: ${DEFAULT-VALUE})")
  double degradedEnd;

  @Option(names = "--degraded-fail-rate", defaultValue = "0.4", description = "failure probability while degraded (default: ${DEFAULT-VALUE})")
  double degradedFailRate;

  @Option(names = "--budgets", defaultValue = "200/0.1,400/0.2,500/0.25,600/0.3",
      description = "retry budgets max/ratio, comma-separated (default: ${DEFAULT-VALUE})")
  String budgets;

  @Override
  public Integer call() {
    RetryBudgetStudy study;
    try {
      List<BudgetSetting> parsed = BudgetSetting.parseList(budgets);
      study = new RetryBudgetStudy(common.seed, rate, horizon, common.maxAttempts, outageEnd, degradedEnd,
          degradedFailRate, common.immediateDelay, common.backoffBase, common.backoffCap, parsed);
      study.requests(); // validates rate and horizon
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage(), e);
    }
    List<RetryBudgetStudy.Row> rows = study.run();
    PrintWriter out = spec.commandLine().getOut();
    if (common.format == Table.Format.TABLE) {
      out.printf(Locale.ROOT, "retry-budget study: %d requests at %s/s, outage until %s s, %s failing until %s s, "
              + "%d attempts max, seed %d%n%n", study.requests(), StudyOptions.n(rate), StudyOptions.n(outageEnd),
          StudyOptions.n(degradedFailRate), StudyOptions.n(degradedEnd), common.maxAttempts, common.seed);
    }
    out.print(StudyTables.retryBudget(rows).render(common.format));
    if (common.format == Table.Format.TABLE) {
      out.print(legend(study));
    }
    out.flush();
    return 0;
  }

  /** What each column of the table means, with its unit, for {@code study}'s parameters. */
  static String legend(RetryBudgetStudy study) {
    return String.format(Locale.ROOT, """

        policy   immediate retry: waits %s s before each retry
                 backoff + full jitter: waits U(0,1) x min(%s, %s x 2^n) s after n attempts
                 budget M / ratio R: full jitter; a retry spends 1 of at most M tokens (full at start), a success earns R
        calls    upstream calls, first attempts and retries (count)
        retries  upstream calls after a request's first (count)
        denied   requests lost because the retry budget refused a retry (count)
        amp      amplification: upstream calls per request (1.00: no retries)
        loss     requests that never succeeded (all %d attempts failed, or a retry was denied), %% of the %d

        The trade: a budget caps amp (the load retries add to a struggling upstream, for every client
        at once) and pays for it in loss during the outage; a smaller budget protects the upstream
        more and loses more. Without a budget, N clients retrying multiply an overload by up to %d.
        """, StudyOptions.n(study.immediateDelay()), StudyOptions.n(study.backoffCap()),
        StudyOptions.n(study.backoffBase()), study.maxAttempts(), study.requests(), study.maxAttempts());
  }
}
