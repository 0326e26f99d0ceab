package dev.levee.gateway.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import dev.levee.anthropic.Units;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.core.breaker.CircuitBreakerConfig;
import dev.levee.gateway.config.GatewayConfig.BreakerSetting;
import dev.levee.gateway.config.GatewayConfig.TargetRef;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/** Jackson deserializers that substitute environment variables and parse Levee's units. */
final class Deserializers {

  private Deserializers() {}

  /** The context attribute holding the {@link EnvSubstitution} of the read in progress. */
  static final String ENV = "levee.env";

  static EnvSubstitution env(DeserializationContext ctxt) {
    return (EnvSubstitution) ctxt.getAttribute(ENV);
  }

  /** A scalar's text with variables substituted. */
  static String scalar(JsonParser p, DeserializationContext ctxt) throws IOException {
    if (!p.currentToken().isScalarValue()) {
      throw JsonMappingException.from(p, "expected a single value, not " + describe(p.currentToken()));
    }
    try {
      return env(ctxt).apply(p.getText());
    } catch (IllegalArgumentException e) {
      throw JsonMappingException.from(p, e.getMessage());
    }
  }

  private static String describe(JsonToken token) {
    return switch (token) {
      case START_OBJECT -> "a mapping";
      case START_ARRAY -> "a list";
      default -> token.asString();
    };
  }

  static final class Str extends JsonDeserializer<String> {
    @Override
    public String deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return scalar(p, ctxt);
    }
  }

  static <T> T parse(JsonParser p, DeserializationContext ctxt, Function<String, T> parser) throws IOException {
    String text = scalar(p, ctxt);
    try {
      return parser.apply(text.trim());
    } catch (IllegalArgumentException e) {
      String why = e instanceof NumberFormatException ? "expected a number, got '" + text + "'" : e.getMessage();
      throw JsonMappingException.from(p, why);
    }
  }

  /**
   * A scalar read by {@code parser} from its trimmed text, variables substituted; the parser's
   * {@link IllegalArgumentException} is the value's error.
   */
  static class Parsed<T> extends JsonDeserializer<T> {
    private final Function<String, T> parser;

    Parsed(Function<String, T> parser) {
      this.parser = parser;
    }

    @Override
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return parse(p, ctxt, parser);
    }
  }

  static final class Int extends Parsed<Integer> {
    Int() {
      super(Integer::valueOf);
    }
  }

  static final class Dbl extends Parsed<Double> {
    Dbl() {
      super(Double::valueOf);
    }
  }

  static final class Bool extends Parsed<Boolean> {
    Bool() {
      super(s -> switch (s) {
        case "true", "on", "yes" -> true;
        case "false", "off", "no" -> false;
        default -> throw new IllegalArgumentException("expected true or false, got '" + s + "'");
      });
    }
  }

  /**
   * One of an enum's constants, in any case ({@code critical}, {@code fail-mode: closed}, {@code
   * thinking: T0} or {@code t0}: a tier is written {@code T1} in {@code /admin/tiers} and the
   * headers, and both are accepted everywhere); anything else is refused with the allowed values.
   */
  static final class Choice<E extends Enum<E>> extends JsonDeserializer<E> {
    private final Class<E> type;

    Choice(Class<E> type) {
      this.type = type;
    }

    @Override
    public E deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      String text = scalar(p, ctxt).trim();
      for (E constant : type.getEnumConstants()) {
        if (name(constant).equalsIgnoreCase(text)) {
          return constant;
        }
      }
      throw JsonMappingException.from(p, "must be one of " + allowed(type) + ", was '" + text + "'");
    }

    static String name(Enum<?> constant) {
      return constant.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
    }

    static String allowed(Class<? extends Enum<?>> type) {
      return java.util.Arrays.stream(type.getEnumConstants()).map(Choice::name)
          .collect(java.util.stream.Collectors.joining(", "));
    }
  }

  static final class Dur extends Parsed<Duration> {
    Dur() {
      super(Units::duration);
    }
  }

  static final class Size extends Parsed<Long> {
    Size() {
      super(Units::bytes);
    }
  }

  static final class Uri extends Parsed<URI> {
    Uri() {
      super(s -> {
        String trimmed = s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        try {
          return new URI(trimmed);
        } catch (java.net.URISyntaxException e) {
          throw new IllegalArgumentException("not a valid URL: '" + s + "'");
        }
      });
    }
  }

  /** An absolute http(s) URL kept as text, or empty; the value is never echoed (it may hold a secret). */
  static final class HttpUrl extends Parsed<String> {
    HttpUrl() {
      super(s -> {
        if (!s.isEmpty() && !valid(s)) {
          throw new IllegalArgumentException("not an absolute http(s) URL");
        }
        return s;
      });
    }

    static boolean valid(String value) {
      try {
        URI uri = new URI(value);
        return ("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null;
      } catch (java.net.URISyntaxException e) {
        return false;
      }
    }
  }

  /** {@code upstream/model}, or {@code {target: upstream/model, prefill: true|false}}. */
  static final class TargetSpec extends JsonDeserializer<TargetRef> {
    @Override
    public TargetRef deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      int line = p.currentTokenLocation().getLineNr();
      if (p.currentToken().isScalarValue()) {
        dev.levee.core.chain.Target target = parse(p, ctxt, dev.levee.core.chain.Target::parse);
        return new TargetRef(target.upstream(), target.model(), null, line);
      }
      JsonNode node = ctxt.readTree(p);
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!key.equals("target") && !key.equals("prefill")) {
          throw JsonMappingException.from(p, "unknown key '" + key + "' in a chain entry (known: prefill, target)");
        }
      }
      if (!node.hasNonNull("target")) {
        throw JsonMappingException.from(p, "a chain entry needs target: upstream/model");
      }
      EnvSubstitution env = env(ctxt);
      try {
        dev.levee.core.chain.Target target = dev.levee.core.chain.Target.parse(env.apply(node.get("target").asText()).trim());
        Boolean prefill = null;
        if (node.has("prefill")) {
          String value = env.apply(node.get("prefill").asText()).trim();
          if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("prefill must be true or false, was '" + value + "'");
          }
          prefill = Boolean.valueOf(value);
        }
        return new TargetRef(target.upstream(), target.model(), prefill, line);
      } catch (IllegalArgumentException e) {
        throw JsonMappingException.from(p, e.getMessage());
      }
    }
  }

  /** {@code cors: "*"|off|<origin>} or a list of origins ({@link Cors}). */
  static final class CorsSetting extends JsonDeserializer<Cors> {
    @Override
    public Cors deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      List<String> origins = new java.util.ArrayList<>();
      if (p.currentToken() == JsonToken.START_ARRAY) {
        while (p.nextToken() != JsonToken.END_ARRAY) {
          origins.add(scalar(p, ctxt));
        }
      } else {
        String one = scalar(p, ctxt).trim();
        if (one.equals("off") || one.equals("false")) {
          return Cors.OFF;
        }
        origins.add(one);
      }
      try {
        return new Cors(true, origins);
      } catch (IllegalArgumentException e) {
        throw JsonMappingException.from(p, e.getMessage());
      }
    }
  }

  /** {@code breaker: default|batch|interactive|admin|off} or a mapping of settings. */
  static final class Breaker extends JsonDeserializer<BreakerSetting> {
    private static final Set<String> KEYS = Set.of("profile", "failures", "window", "open-for", "half-open-trials", "close-after",
        "failure-rate");

    @Override
    public BreakerSetting deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      if (p.currentToken().isScalarValue()) {
        String name = scalar(p, ctxt).trim();
        if (name.equals("off")) {
          return new BreakerSetting(false, CircuitBreakerConfig.DEFAULT);
        }
        try {
          return new BreakerSetting(true, CircuitBreakerConfig.profile(name));
        } catch (IllegalArgumentException e) {
          throw JsonMappingException.from(p, e.getMessage().replace(")", ", off)"));
        }
      }
      JsonNode node = ctxt.readTree(p);
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String key = it.next();
        if (!KEYS.contains(key)) {
          throw JsonMappingException.from(p,
              "unknown breaker key '" + key + "' (known: " + String.join(", ", new java.util.TreeSet<>(KEYS)) + ")");
        }
      }
      EnvSubstitution env = env(ctxt);
      CircuitBreakerConfig base = node.has("profile")
          ? CircuitBreakerConfig.profile(env.apply(node.get("profile").asText()))
          : CircuitBreakerConfig.DEFAULT;
      try {
        return new BreakerSetting(true, new CircuitBreakerConfig(
            setting(node, "failures", env, s -> Integer.parseInt(s.trim()), base.failures()),
            setting(node, "window", env, Units::duration, base.window()),
            setting(node, "open-for", env, Units::duration, base.openFor()),
            setting(node, "half-open-trials", env, s -> Integer.parseInt(s.trim()), base.halfOpenTrials()),
            setting(node, "close-after", env, s -> Integer.parseInt(s.trim()), base.closeAfter()),
            setting(node, "failure-rate", env, s -> Double.parseDouble(s.trim()), base.failureRate())));
      } catch (IllegalArgumentException e) {
        throw JsonMappingException.from(p, e.getMessage());
      }
    }

    /** {@code key}'s value, variables substituted, read by {@code parser}; {@code fallback} where the mapping has no {@code key}. */
    private static <T> T setting(JsonNode node, String key, EnvSubstitution env, Function<String, T> parser, T fallback) {
      return node.has(key) ? parser.apply(env.apply(node.get(key).asText())) : fallback;
    }
  }
}
