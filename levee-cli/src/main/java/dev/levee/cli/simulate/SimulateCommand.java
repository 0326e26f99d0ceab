package dev.levee.cli.simulate;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code levee simulate}: runs levee-core's own policies in the discrete-event simulator
 * (levee-sim) under virtual time, so a retry policy can be measured before production measures
 * it. Subcommands: {@code retry-budget} (the published retry-budget study), {@code overload}
 * (load that feeds back, with a chart) and {@code routing-day} (fixed chain against score routing
 * through an Opus brown-out).
 */
@Command(
    name = "simulate",
    mixinStandardHelpOptions = true,
    description = "Measure retry policies in a simulator that runs Levee's own policy classes on virtual time.",
    subcommands = {RetryBudgetCommand.class, OverloadCommand.class, RoutingDayCommand.class})
public final class SimulateCommand implements Callable<Integer> {

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing subcommand: retry-budget, overload or routing-day");
  }
}
