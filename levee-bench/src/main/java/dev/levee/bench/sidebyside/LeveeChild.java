package dev.levee.bench.sidebyside;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Levee ({@link LeveeProcess}) or a {@link FloorProxy} in a JVM of its own, started as the {@code
 * levee} launcher starts Levee — its flags ({@link LeveeProcess#LAUNCHER_FLAGS}) and {@code
 * MALLOC_ARENA_MAX=2} unless set — and then {@code jvmOptions}, which may override the flags; ready
 * once it printed {@code LEVEE <base url>}. Or, by {@link #upstream}, a benchmark's upstream with
 * none of the launcher's settings. Closing its input stops it.
 */
record LeveeChild(Process process, URI baseUrl) implements AutoCloseable {

  /**
   * @param classPath the class path of the build to run
   * @param workDir its working folder (where its embedded job store lives), or null for this one's
   * @param mainAndArgs the main class's name and its arguments
   */
  static LeveeChild start(String classPath, File workDir, String jvmOptions, String... mainAndArgs) throws Exception {
    return start(classPath, workDir, jvmOptions, true, "LEVEE ", mainAndArgs);
  }

  /**
   * A benchmark's upstream ({@code mainAndArgs}) on this JVM's class path, ready once it printed
   * {@code <readyPrefix><base url>}; the launcher's flags and environment are not applied.
   */
  static LeveeChild upstream(String jvmOptions, String readyPrefix, String... mainAndArgs) throws Exception {
    return start(System.getProperty("java.class.path"), null, jvmOptions, false, readyPrefix, mainAndArgs);
  }

  private static LeveeChild start(String classPath, File workDir, String jvmOptions, boolean asLauncher,
      String readyPrefix, String... mainAndArgs) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("--enable-native-access=ALL-UNNAMED"); // SQLite's native library, as levee-bench/run and the jar's manifest allow it
    if (asLauncher) {
      command.addAll(LeveeProcess.LAUNCHER_FLAGS);
    }
    command.addAll(Arrays.asList(jvmOptions.trim().split("\\s+")));
    command.addAll(List.of("-cp", classPath));
    command.addAll(Arrays.asList(mainAndArgs));
    ProcessBuilder builder = new ProcessBuilder(command).directory(workDir).redirectError(ProcessBuilder.Redirect.INHERIT);
    if (asLauncher) {
      builder.environment().putIfAbsent("MALLOC_ARENA_MAX", "2"); // glibc's arenas, as the launcher sets them
    }
    Process process = builder.start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = out.readLine()) != null; ) {
      if (line.startsWith(readyPrefix)) {
        return new LeveeChild(process, URI.create(line.substring(readyPrefix.length()).replaceAll("/$", "")));
      }
    }
    throw new IllegalStateException("did not start: " + String.join(" ", mainAndArgs) + " from " + classPath);
  }

  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(40, TimeUnit.SECONDS)) { // ten thousand streams' sockets take a while to close
      process.destroy();
    }
  }
}
