package dev.levee.gateway.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.levee.core.tier.Priority;
import dev.levee.gateway.config.GatewayConfig.Alias;
import dev.levee.gateway.config.GatewayConfig.TargetRef;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;

/**
 * Reads a gateway config from YAML: kebab-case keys, {@code ${VAR}} / {@code ${VAR:-default}}
 * substitution in values, units on durations and sizes. Unknown keys, malformed values, missing
 * required keys and references to unknown upstreams are refused with one line naming the key and
 * where it is ({@code levee.yaml: line 2, column 9: server.port: port must be 0-65535, was 70000});
 * a syntax error keeps the parser's own words.
 */
public final class ConfigLoader {

  /** A kebab-case key, or a dotted path of keys, at the start of a message. */
  private static final Pattern LEADING_KEY = Pattern.compile("[a-z][a-z0-9-]*(\\.[\\w-]+)*(?=\\s)");

  private final Function<String, String> env;

  /** A loader reading the process environment. */
  public ConfigLoader() {
    this(System::getenv);
  }

  /** A loader reading variables from {@code env} (null for unset). */
  public ConfigLoader(Function<String, String> env) {
    this.env = env;
  }

  /** Reads and validates the file at {@code path}. */
  public GatewayConfig load(Path path) throws ConfigException {
    String text;
    try {
      text = Files.readString(path);
    } catch (NoSuchFileException e) {
      throw new ConfigException(path + ": no such file");
    } catch (IOException e) {
      throw new ConfigException(path + ": cannot read: " + e.getMessage());
    }
    return parse(text, path.toString());
  }

  /**
   * Parses and validates YAML text.
   *
   * @param source a name for messages (the file name)
   */
  public GatewayConfig parse(String yaml, String source) throws ConfigException {
    if (yaml.isBlank() || yaml.lines().allMatch(l -> l.isBlank() || l.strip().startsWith("#"))) {
      throw new ConfigException(source + ": the file is empty (it needs at least upstreams:)");
    }
    GatewayConfig config;
    try {
      config = reader().withAttribute(Deserializers.ENV, new EnvSubstitution(env)).readValue(yaml);
    } catch (JsonMappingException e) {
      if (e.getCause() instanceof StreamReadException syntax) {
        throw new ConfigException(source + ": " + syntax(syntax), e);
      }
      throw new ConfigException(source + ": " + describe(e, KeyLines.scan(yaml)), e);
    } catch (JsonProcessingException e) {
      throw new ConfigException(source + ": " + syntax(e), e);
    }
    if (config == null) {
      throw new ConfigException(source + ": the file is empty");
    }
    validate(config, source);
    return config;
  }

  private static ObjectReader reader() {
    SimpleModule units = new SimpleModule("levee-units")
        .addDeserializer(String.class, new Deserializers.Str())
        .addDeserializer(Integer.class, new Deserializers.Int())
        .addDeserializer(Double.class, new Deserializers.Dbl())
        .addDeserializer(Boolean.class, new Deserializers.Bool())
        .addDeserializer(Duration.class, new Deserializers.Dur())
        .addDeserializer(URI.class, new Deserializers.Uri())
        .addDeserializer(Priority.class, new Deserializers.Choice<>(Priority.class))
        .addDeserializer(FailMode.class, new Deserializers.Choice<>(FailMode.class))
        .addDeserializer(OnOutage.class, new Deserializers.Choice<>(OnOutage.class))
        .addDeserializer(Disclosure.class, new Deserializers.Choice<>(Disclosure.class))
        .addDeserializer(ThinkingPolicy.class, new Deserializers.Choice<>(ThinkingPolicy.class))
        .addDeserializer(RouteMode.class, new Deserializers.Choice<>(RouteMode.class));
    YAMLMapper mapper = YAMLMapper.builder()
        .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
        .propertyNamingStrategy(PropertyNamingStrategies.KEBAB_CASE)
        .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
        .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
        .addModule(units)
        .build();
    return mapper.readerFor(GatewayConfig.class);
  }

  private static void validate(GatewayConfig config, String source) throws ConfigException {
    if (config.upstreams().isEmpty()) {
      throw new ConfigException(source + ": upstreams: at least one upstream is required");
    }
    for (var feature : config.features().entrySet()) {
      var reduced = feature.getValue().reduced();
      if (reduced != null && reduced.target() != null && !config.upstreams().containsKey(reduced.target().upstream())) {
        throw new ConfigException(source + ": line " + reduced.target().line() + ": features." + feature.getKey()
            + ".reduced.target: unknown upstream '" + reduced.target().upstream() + "' (known: "
            + String.join(", ", new TreeSet<>(config.upstreams().keySet())) + ")");
      }
    }
    for (Map.Entry<String, Alias> model : config.models().entrySet()) {
      Map<String, Integer> seen = new java.util.HashMap<>();
      int i = 0;
      for (TargetRef target : model.getValue().chain()) {
        String where = source + ": line " + target.line() + ": models." + model.getKey() + ".chain[" + i + "]: ";
        if (!config.upstreams().containsKey(target.upstream())) {
          throw new ConfigException(where + "unknown upstream '" + target.upstream() + "' (known: "
              + String.join(", ", new TreeSet<>(config.upstreams().keySet())) + ")");
        }
        Integer first = seen.putIfAbsent(target.upstream() + "/" + target.model(), i);
        if (first != null) { // each request would call it twice in a row: a retry outside the retry policy
          throw new ConfigException(where + target.upstream() + "/" + target.model() + " is chain[" + first
              + "] already: a chain names each target once (more tries of one target are policy.retry's)");
        }
        i++;
      }
    }
  }

  /**
   * A syntax error in one line: where the parser stopped and SnakeYAML's own words ("while
   * scanning a quoted scalar (line 2, column 6): found unexpected end of stream"); Jackson's first
   * line for errors of its own (a duplicate key).
   */
  private static String syntax(JsonProcessingException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof MarkedYAMLException yaml && yaml.getProblem() != null) {
        Mark at = yaml.getProblemMark() != null ? yaml.getProblemMark() : yaml.getContextMark();
        String context = yaml.getContext() == null ? ""
            : yaml.getContext() + (yaml.getContextMark() == null ? "" : " (" + position(yaml.getContextMark()) + ")") + ": ";
        return (at == null ? position(e.getLocation()) : position(at)) + ": not valid YAML: " + context + yaml.getProblem();
      }
    }
    return position(e.getLocation()) + ": not valid YAML: " + e.getOriginalMessage().lines().findFirst().orElse("");
  }

  private static String describe(JsonMappingException e, KeyLines lines) {
    String path = e.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining(".")).replace(".[", "[");
    if (e instanceof ValueInstantiationException v) {
      String unknown = unknownKey(v, path, lines); // Jackson builds a record before it reports unknown keys
      if (unknown != null) {
        return unknown;
      }
      if (e.getCause() != null) {
        path = namedKey(path, e.getCause().getMessage(), lines); // a record refused one of its values
      }
    }
    KeyLines.Position at = e instanceof UnrecognizedPropertyException ? lines.keyOf(path) : lines.of(path);
    String where = (at.line() > 0 ? at.toString() : position(e.getLocation())) + (path.isEmpty() ? "" : ": " + path);
    if (e instanceof UnrecognizedPropertyException u) {
      String known = u.getKnownPropertyIds() == null ? "" : " (known: " + u.getKnownPropertyIds().stream()
          .map(String::valueOf).sorted().collect(Collectors.joining(", ")) + ")";
      return where + ": unknown key '" + u.getPropertyName() + "'" + known;
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null && m.getOriginalMessage().contains(" from ")) {
      String expected = shape(m.getTargetType());
      String got = shapeOf(m.getOriginalMessage());
      String hint = expected.equals("a list") && got.equals("a single value") ? " (write [a, b], or one '- a' per line)" : "";
      return where + ": expected " + expected + ", got " + got + hint;
    }
    Throwable cause = e instanceof ValueInstantiationException && e.getCause() != null ? e.getCause() : e;
    String message = cause == e ? e.getOriginalMessage() : cause.getMessage();
    return where + ": " + clean(message);
  }

  private static String shape(Class<?> type) {
    if (java.util.Collection.class.isAssignableFrom(type) || type.isArray()) {
      return "a list";
    }
    if (Map.class.isAssignableFrom(type) || type.isRecord()) {
      return "a mapping";
    }
    return "a single value";
  }

  private static String shapeOf(String jacksonMessage) {
    if (jacksonMessage.contains("from Array value")) {
      return "a list";
    }
    if (jacksonMessage.contains("from Object value")) {
      return "a mapping";
    }
    return "a single value";
  }

  private static String clean(String message) {
    // Jackson's own messages name Java types; people wrote YAML, so name YAML shapes.
    return message
        .replaceAll("`(java\\.util\\.(List|ArrayList)|[\\w.$]*\\[\\])`", "a list")
        .replaceAll("`(java\\.util\\.(Map|LinkedHashMap)[^`]*|dev\\.levee\\.[\\w.$]+)`", "a mapping")
        .replaceAll("`java\\.lang\\.(\\w+)`", "$1")
        .replaceAll(" \\(token `JsonToken\\.\\w+`\\)", "");
  }

  /**
   * The key a record's message starts with ("port must be 0-65535" in {@code server}: {@code
   * server.port}) when the document has it, so the message points at the value, not the mapping.
   */
  /**
   * A key under {@code path} that the record refusing its values does not know, as {@link
   * #describe} words an unknown key, else null: a misspelled key ({@code chian:}) leaves its value
   * unset, and the record's own complaint about that ("chain needs at least one target") would hide
   * the typo.
   */
  private static String unknownKey(ValueInstantiationException e, String path, KeyLines lines) {
    if (e.getType() == null) {
      return null;
    }
    java.util.Set<String> known = new TreeSet<>();
    reader().getConfig().introspect(e.getType()).findProperties().forEach(p -> known.add(p.getName()));
    if (known.isEmpty()) {
      return null;
    }
    for (String key : new TreeSet<>(lines.keysUnder(path))) {
      if (!known.contains(key)) {
        String named = path.isEmpty() ? key : path + "." + key;
        return lines.keyOf(named) + ": " + named + ": unknown key '" + key + "' (known: " + String.join(", ", known) + ")";
      }
    }
    return null;
  }

  private static String namedKey(String path, String message, KeyLines lines) {
    Matcher key = LEADING_KEY.matcher(message == null ? "" : message);
    if (key.lookingAt()) {
      String named = path.isEmpty() ? key.group() : path + "." + key.group();
      if (lines.has(named)) {
        return named;
      }
    }
    return path;
  }

  private static String position(JsonLocation location) {
    return location == null ? "line 0" : new KeyLines.Position(location.getLineNr(), Math.max(0, location.getColumnNr())).toString();
  }

  private static String position(Mark mark) {
    return new KeyLines.Position(mark.getLine() + 1, mark.getColumn() + 1).toString();
  }
}
