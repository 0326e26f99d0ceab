package dev.levee.cli;

import dev.levee.emulator.Scenario;
import dev.levee.emulator.ScenarioException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** Loads the scenario file a command was given, or says in one line why it cannot. */
final class ScenarioFiles {

  private ScenarioFiles() {}

  /** The scenario in {@code file}, or null after printing why not to {@code err}. */
  static Scenario load(Path file, PrintWriter err) {
    try {
      return Scenario.load(file);
    } catch (ScenarioException e) {
      err.println("levee: bad scenario: " + e.getMessage());
    } catch (NoSuchFileException e) {
      err.println("levee: bad scenario: " + file + ": no such file");
    } catch (IOException e) {
      err.println("levee: cannot read the scenario " + file + ": " + OneLineErrors.reason(e));
    }
    return null;
  }
}
