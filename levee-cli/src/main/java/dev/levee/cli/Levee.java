package dev.levee.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code levee <command> [options]}: the runnable jar's entry point. */
@Command(
    name = "levee",
    mixinStandardHelpOptions = true,
    version = "levee 0.1.0",
    description = "A resilience layer and gateway for the Anthropic Messages API.",
    subcommands = {
        DemoCommand.class,
        dev.levee.cli.drill.DrillCommand.class,
        ServeCommand.class,
        EmulatorCommand.class,
        dev.levee.cli.simulate.SimulateCommand.class,
        CommandLine.HelpCommand.class
    })
public final class Levee implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    // Netty under the cluster's Redis client reaches for sun.misc.Unsafe, which JDK 24+ warns about
    // on stderr (four lines at start); the link's few small commands need none of its speed.
    if (System.getProperty("io.netty.noUnsafe") == null) {
      System.setProperty("io.netty.noUnsafe", "true");
    }
    System.exit(commandLine().execute(args));
  }

  /**
   * The command line with every subcommand registered (also used by tests). Every mistake is one
   * line on stderr with exit code 2; an unexpected failure one line with exit code 1 ({@link
   * OneLineErrors}).
   */
  public static CommandLine commandLine() {
    OneLineErrors errors = new OneLineErrors();
    return new CommandLine(new Levee()).setParameterExceptionHandler(errors).setExecutionExceptionHandler(errors);
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
