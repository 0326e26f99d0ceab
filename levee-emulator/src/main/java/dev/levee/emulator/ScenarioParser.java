package dev.levee.emulator;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.levee.anthropic.Units;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Reads the YAML form of a {@link Scenario}, remembering the line of every key so that each
 * problem is reported as {@code source:line: key: problem}.
 */
final class ScenarioParser {

  private static final YAMLFactory YAML = new YAMLFactory();
  private static final Set<String> TOP_KEYS = Set.of("seed", "phases");
  private static final Set<String> PHASE_KEYS =
      Set.of("model", "from", "to", "status", "rate", "retry-after", "ttft", "delta-delay");
  private final String source;
  private final Map<String, Integer> lines = new HashMap<>();

  private ScenarioParser(String source) {
    this.source = source;
  }

  static Scenario parse(String yaml, String source) {
    return new ScenarioParser(source).read(yaml);
  }

  private Scenario read(String yaml) {
    JsonNode root;
    try (JsonParser parser = YAML.createParser(yaml)) {
      JsonToken first = parser.nextToken();
      if (first == null) {
        throw new ScenarioException(source, 1, null, "the scenario is empty; expected a mapping with 'phases'");
      }
      root = tree(parser, "");
    } catch (JsonProcessingException e) {
      int line = e.getLocation() == null ? 1 : Math.max(1, e.getLocation().getLineNr());
      throw new ScenarioException(source, line, null, "not valid YAML: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (!root.isObject()) {
      throw problem("", "expected a mapping with 'phases'");
    }
    checkKeys((ObjectNode) root, "", TOP_KEYS);
    Scenario.Builder scenario = Scenario.builder();
    if (root.has("seed")) {
      if (!root.get("seed").canConvertToLong() || !root.get("seed").isIntegralNumber()) {
        throw problem("seed", "expected an integer, was " + root.get("seed"));
      }
      scenario.seed(root.get("seed").asLong());
    }
    JsonNode phases = root.get("phases");
    if (phases == null || !phases.isArray()) {
      throw problem(phases == null ? "" : "phases", "expected a list under 'phases'");
    }
    for (int i = 0; i < phases.size(); i++) {
      scenario.phase(phase(phases.get(i), "phases[" + i + "]"));
    }
    return scenario.build();
  }

  private Scenario.Phase phase(JsonNode node, String path) {
    if (!node.isObject()) {
      throw problem(path, "expected a mapping of phase keys " + PHASE_KEYS);
    }
    checkKeys((ObjectNode) node, path, PHASE_KEYS);
    Scenario.PhaseBuilder phase = Scenario.Phase.builder();
    if (node.has("model")) {
      if (!node.get("model").isTextual() || node.get("model").asText().isEmpty()) {
        throw problem(path + ".model", "expected a model name, '*' or a prefix ending in '*'");
      }
      phase.model(node.get("model").asText());
    }
    Duration from = node.has("from") ? duration(node, path, "from") : Duration.ZERO;
    phase.from(from);
    if (node.has("to")) {
      Duration to = duration(node, path, "to");
      if (to.compareTo(from) <= 0) {
        throw problem(path + ".to", "must be after 'from' (" + from.toMillis() + " ms), was " + to.toMillis() + " ms");
      }
      phase.to(to);
    }
    if (node.has("status")) {
      JsonNode status = node.get("status");
      if (!status.isIntegralNumber() || !Scenario.STATUSES.contains(status.asInt())) {
        throw problem(path + ".status", "must be one of 200, 429, 500, 503, 529, was " + status);
      }
      phase.status(status.asInt());
    }
    if (node.has("rate")) {
      JsonNode rate = node.get("rate");
      if (!rate.isNumber() || rate.asDouble() < 0 || rate.asDouble() > 1) {
        throw problem(path + ".rate", "must be a number within 0..1, was " + rate);
      }
      phase.rate(rate.asDouble());
    }
    if (node.has("retry-after")) {
      phase.retryAfter(duration(node, path, "retry-after"));
    }
    if (node.has("ttft")) {
      phase.ttft(duration(node, path, "ttft"));
    }
    if (node.has("delta-delay")) {
      phase.deltaDelay(duration(node, path, "delta-delay"));
    }
    return phase.build();
  }

  /** A duration: {@code 500ms}, {@code 20s}, {@code 2m}, or a bare number of seconds ({@link Units}). */
  private Duration duration(JsonNode parent, String path, String key) {
    JsonNode node = parent.get(key);
    try {
      return Units.durationOrSeconds(node.isNumber() || node.isTextual() ? node.asText() : "");
    } catch (IllegalArgumentException e) {
      throw problem(path + "." + key, "expected a duration like 500ms, 20s or 2m, was " + node);
    }
  }

  private void checkKeys(ObjectNode node, String path, Set<String> allowed) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw problem(join(path, name), "unknown key; expected one of " + allowed.stream().sorted().toList());
      }
    }
  }

  private ScenarioException problem(String key, String message) {
    return new ScenarioException(source, lines.getOrDefault(key, 1), key.isEmpty() ? null : key, message);
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** Reads the value at the parser's current token, recording the line of every key. */
  private JsonNode tree(JsonParser parser, String path) throws IOException {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    lines.putIfAbsent(path, parser.currentTokenLocation().getLineNr());
    return switch (parser.currentToken()) {
      case START_OBJECT -> {
        ObjectNode object = nodes.objectNode();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          String child = join(path, name);
          lines.put(child, parser.currentTokenLocation().getLineNr());
          parser.nextToken();
          object.set(name, tree(parser, child));
        }
        yield object;
      }
      case START_ARRAY -> {
        ArrayNode array = nodes.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          array.add(tree(parser, path + "[" + array.size() + "]"));
        }
        yield array;
      }
      case VALUE_NUMBER_INT -> nodes.numberNode(parser.getBigIntegerValue());
      case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDecimalValue());
      case VALUE_TRUE, VALUE_FALSE -> nodes.booleanNode(parser.getBooleanValue());
      case VALUE_NULL -> nodes.nullNode();
      default -> nodes.textNode(parser.getText());
    };
  }
}
