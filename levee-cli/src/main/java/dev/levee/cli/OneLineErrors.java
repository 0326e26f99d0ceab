package dev.levee.cli;

import java.io.PrintWriter;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * How a command line reports what went wrong: one line on stderr, never a stack trace.
 *
 * <ul>
 *   <li>a usage mistake (unknown option, a value of the wrong kind or out of range): {@code
 *       levee serve: <what is wrong> (levee serve --help)}, exit code 2;
 *   <li>an exception a command did not expect: {@code levee serve: <what happened>}, exit code 1;
 *       with {@code LEVEE_DEBUG=1} in the environment, the stack trace follows.
 * </ul>
 */
final class OneLineErrors implements IParameterExceptionHandler, IExecutionExceptionHandler {

  @Override
  public int handleParseException(ParameterException ex, String[] args) {
    CommandLine cli = ex.getCommandLine();
    String name = cli.getCommandSpec().qualifiedName();
    cli.getErr().println(name + ": " + ex.getMessage() + " (" + name + " --help)");
    return cli.getCommandSpec().exitCodeOnInvalidInput();
  }

  @Override
  public int handleExecutionException(Exception ex, CommandLine cli, ParseResult parsed) {
    PrintWriter err = cli.getErr();
    err.println(cli.getCommandSpec().qualifiedName() + ": " + reason(ex));
    if (System.getenv("LEVEE_DEBUG") != null) {
      ex.printStackTrace(err);
    }
    return cli.getCommandSpec().exitCodeOnExecutionException();
  }

  /**
   * The most telling message in {@code e}'s causes: the outermost one that repeats its own cause's
   * (it adds what was being done: "cannot open the queue store …: Connection to … refused"), else
   * the innermost one (the root cause); in words for the exceptions that come without one.
   */
  static String reason(Throwable e) {
    String innermost = null;
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "no such address";
      }
      String message = message(t);
      if (message != null) {
        String cause = t.getCause() == null ? null : message(t.getCause());
        if (cause != null && message.contains(cause)) {
          return message;
        }
        innermost = message;
      }
    }
    return innermost != null ? innermost : e.getClass().getSimpleName();
  }

  /** {@code t}'s own message: null when blank, or only its cause's name and message ({@code new X(cause)}). */
  private static String message(Throwable t) {
    String m = t.getMessage();
    boolean wrapper = t.getCause() != null && t.getCause().toString().equals(m);
    return m == null || m.isBlank() || wrapper ? null : m;
  }

  /** Whether {@code e} says the address to bind does not exist (a mistake in the host given). */
  static boolean badAddress(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return true;
      }
    }
    return false;
  }
}
