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
 * Levee ({@link LeveeProcess}) or a {@link FloorProxy} in a JVM of its own, started with the
 * launcher's flags ({@link LeveeProcess#LAUNCHER_FLAGS}) and then {@code jvmOptions}, which may
 * override them; ready once it printed {@code LEVEE <base url>}. Closing its input stops it.
 */
record LeveeChild(Process process, URI baseUrl) implements AutoCloseable {

  /**
   * @param classPath the class path of the build to run
   * @param workDir its working folder (where its embedded job store lives), or null for this one's
   * @param mainAndArgs the main class's name and its arguments
   */
  static LeveeChild start(String classPath, File workDir, String jvmOptions, String... mainAndArgs) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(LeveeProcess.LAUNCHER_FLAGS);
    command.addAll(Arrays.asList(jvmOptions.trim().split("\\s+")));
    command.addAll(List.of("-cp", classPath));
    command.addAll(Arrays.asList(mainAndArgs));
    Process process = new ProcessBuilder(command).directory(workDir).redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    for (String line; (line = out.readLine()) != null; ) {
      if (line.startsWith("LEVEE ")) {
        return new LeveeChild(process, URI.create(line.substring(6).replaceAll("/$", "")));
      }
    }
    throw new IllegalStateException("did not start: " + String.join(" ", mainAndArgs) + " from " + classPath);
  }

  @Override
  public void close() throws Exception {
    process.getOutputStream().close();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroy();
    }
  }
}
