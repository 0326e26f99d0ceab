package dev.levee.gateway.e2e;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The official TypeScript SDK ({@code @anthropic-ai/sdk}), run by Node.js from {@code
 * src/test/ts}: {@code stream.mjs} streams one message and prints one JSON line, read here as a
 * {@link Result}.
 *
 * <p>{@link #installed()} runs {@code npm ci} once when {@code node_modules} does not hold the
 * SDK version that {@code package.json} pins (a cold install fetches it from the npm registry).
 * Node.js 20 or newer and npm must be on {@code PATH}: without them the tests fail, they do not
 * skip. Output of every process goes to files under {@code target/ts-sdk/} and is shown in the
 * failure message when a process fails or overruns its timeout. Not thread-safe.
 */
final class TypeScriptSdk {

  /** A cold {@code npm ci} downloads a handful of packages; a slow registry gets generous room. */
  private static final Duration INSTALL_TIMEOUT = Duration.ofMinutes(5);
  /** One streamed answer through the gateway, recovery included, takes well under a second. */
  private static final Duration RUN_TIMEOUT = Duration.ofSeconds(60);
  private static final int MIN_NODE_MAJOR = 20;
  private static final ObjectMapper JSON = new ObjectMapper();

  private static TypeScriptSdk shared;

  private final Path dir;
  private final Path logs;

  private TypeScriptSdk(Path dir, Path logs) {
    this.dir = dir;
    this.logs = logs;
  }

  /**
   * What {@code stream.mjs} printed: on success {@code id}, {@code text}, {@code stopReason},
   * {@code blocks} (content blocks of the final message) and {@code starts} (the id of every
   * {@code message_start} event); on failure {@code error} (the thrown object's class name) and
   * {@code message}. Fields that do not apply are null (or 0 / empty).
   */
  record Result(boolean ok, String id, String text, String stopReason, int blocks, List<String> starts, String error,
      String message) {}

  /** The SDK folder, with the pinned SDK installed. */
  static synchronized TypeScriptSdk installed() throws IOException, InterruptedException {
    if (shared == null) {
      Path base = Path.of(System.getProperty("basedir", System.getProperty("user.dir"))).toAbsolutePath();
      TypeScriptSdk sdk = new TypeScriptSdk(base.resolve("src/test/ts"), base.resolve("target/ts-sdk"));
      Files.createDirectories(sdk.logs);
      sdk.requireNode();
      sdk.installIfMissing();
      shared = sdk;
    }
    return shared;
  }

  /** Streams {@code prompt} to {@code model} at {@code baseUrl} with the SDK's retries off. */
  Result stream(URI baseUrl, String model, String prompt) throws IOException, InterruptedException {
    Run run = run("stream", RUN_TIMEOUT, List.of("node", "stream.mjs", baseUrl.toString(), model, prompt));
    List<String> lines = run.stdout().lines().filter(l -> !l.isBlank()).toList();
    if (run.exitCode() != 0 || lines.size() != 1) {
      throw new AssertionError("stream.mjs should print one JSON line and exit 0\n" + run);
    }
    JsonNode line = JSON.readTree(lines.get(0));
    List<String> starts = new ArrayList<>();
    line.path("starts").forEach(id -> starts.add(id.asText()));
    return new Result(line.path("ok").asBoolean(), text(line, "id"), text(line, "text"), text(line, "stop_reason"),
        line.path("blocks").asInt(), List.copyOf(starts), text(line, "error"), text(line, "message"));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    return value == null || value.isNull() ? null : value.asText();
  }

  private void requireNode() throws IOException, InterruptedException {
    Run version = run("node-version", Duration.ofSeconds(30), List.of("node", "--version"));
    String v = version.stdout().strip();
    int major = v.matches("v\\d+\\..*") ? Integer.parseInt(v.substring(1, v.indexOf('.'))) : -1;
    if (version.exitCode() != 0 || major < MIN_NODE_MAJOR) {
      throw new AssertionError("the TypeScript SDK tests need Node.js " + MIN_NODE_MAJOR + " or newer on PATH\n" + version);
    }
  }

  private void installIfMissing() throws IOException, InterruptedException {
    String pinned = JSON.readTree(dir.resolve("package.json").toFile()).path("dependencies")
        .path("@anthropic-ai/sdk").asText();
    Path installedManifest = dir.resolve("node_modules/@anthropic-ai/sdk/package.json");
    if (Files.exists(installedManifest)
        && pinned.equals(JSON.readTree(installedManifest.toFile()).path("version").asText())) {
      return;
    }
    Run install = run("npm-ci", INSTALL_TIMEOUT, List.of("npm", "ci", "--no-audit", "--no-fund"));
    if (install.exitCode() != 0) {
      throw new AssertionError("npm ci failed to install @anthropic-ai/sdk@" + pinned + " in " + dir + "\n" + install);
    }
  }

  /** What one process did; {@code exitCode} is -1 when it overran its timeout and was killed. */
  private record Run(List<String> command, int exitCode, String stdout, String stderr) {
    @Override
    public String toString() {
      return "$ " + String.join(" ", command) + "\nexit: " + (exitCode < 0 ? "killed after its timeout" : exitCode)
          + "\n--- stdout\n" + stdout + "\n--- stderr\n" + stderr;
    }
  }

  private Run run(String name, Duration timeout, List<String> command) throws IOException, InterruptedException {
    Path out = Files.createTempFile(logs, name + "-", ".out");
    Path err = Files.createTempFile(logs, name + "-", ".err");
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(key -> key.startsWith("ANTHROPIC_")); // only the arguments steer the SDK
    Process process;
    try {
      process = builder.start();
    } catch (IOException e) {
      throw new AssertionError("cannot run '" + command.get(0) + "': the TypeScript SDK tests need Node.js "
          + MIN_NODE_MAJOR + "+ and npm on PATH (" + e.getMessage() + ")", e);
    }
    process.getOutputStream().close(); // no input
    int exitCode;
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      exitCode = process.exitValue();
    } else {
      process.destroyForcibly().waitFor();
      exitCode = -1;
    }
    return new Run(command, exitCode, Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
