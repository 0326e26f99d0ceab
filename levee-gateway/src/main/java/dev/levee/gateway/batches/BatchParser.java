package dev.levee.gateway.batches;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.JsonSyntax;
import dev.levee.anthropic.Utf8;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.message.MessagesRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Reads and checks a {@code POST /v1/messages/batches} body — {@code {"requests": [{"custom_id",
 * "params"}, …]}} — all of it before anything is stored: the first problem refuses the whole batch
 * with the API's 400 {@code invalid_request_error} (413 {@code request_too_large} past the API's
 * limits: 100,000 requests, 256 MB; source: the Message Batches API documentation). A body that is
 * not UTF-8 is refused as {@code /v1/messages} refuses it ({@link JsonSyntax#readsUtf8}; an
 * ill-formed UTF-8 sequence anywhere, by its byte offset, {@link Utf8}), and so
 * is a field given twice, at any depth ({@code requests.0.params.model: given more than once}); the
 * body is read with {@link Json#MAPPER}'s limits, as a Messages request is (strings bounded by the
 * body only, nesting {@value Json#MAX_NESTING_DEPTH} deep); field names quoted in a refusal are cut
 * ({@link ClientText#shown}).
 */
final class BatchParser {

  /** The API's limit on requests in one batch. */
  static final int MAX_REQUESTS = 100_000;
  /** The API's limit on a batch's size, bytes. */
  static final long MAX_BYTES = 256L * 1024 * 1024;

  /**
   * The bytes of heap a parse takes per byte of body, at its peak: the body and each request's
   * params as bytes, held together ({@link #parse} never builds the whole body's tree). Measured
   * with a 103 MB batch of 100,000 requests, the gateway's own ~50 MB beside it: refused with {@code
   * OutOfMemoryError} under {@code -Xmx224m}, taken under {@code -Xmx256m} (1.7–2.0 a byte); with
   * the whole tree built first it took {@code -Xmx512m} and failed under {@code -Xmx384m}.
   */
  static final int MEMORY_PER_BYTE = 2;

  /**
   * The heap a request's tree takes per JSON token, bytes, at most about: a node object, and for
   * an object the map entry it sits in (an empty {@code {}} is ~100 bytes of heap for 2 tokens and
   * 3 bytes of body). A batch of one request of 12 MB of {@code {}} held 24 MB at 2 bytes a byte
   * and ran a 256 MiB heap out; it now holds ~500 MB and is refused.
   */
  static final int TREE_BYTES_PER_TOKEN = 64;

  /** Reads one value of a list, the list going on after it (the mapper's own reader refuses what follows a value). */
  private static final ObjectReader ONE_OF_MANY = Json.MAPPER.reader()
      .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final Pattern CUSTOM_ID = Pattern.compile("[a-zA-Z0-9_-]{1,64}");
  /** A request of a batch that passed every check. */
  record Entry(String customId, byte[] params, String model) {}

  /** A batch refused whole, with the error to answer. */
  static final class Refused extends Exception {
    final transient ApiError error;

    Refused(ApiError error) {
      super(error.message());
      this.error = error;
    }
  }

  private BatchParser() {}

  private static void refuseIfNotUtf8(byte[] body) throws Refused {
    int at = Utf8.firstMalformed(body, 0, body.length);
    if (at >= 0) {
      throw bad(RefusalReason.BODY_NOT_UTF8, Utf8.refusal(body, at));
    }
  }

  /**
   * The batch's requests, each checked, in order; the first problem refuses the whole batch. Reads
   * the body twice and never builds its whole tree: once for its syntax and its top level (what
   * the tree would have refused, it refuses alike), then a request at a time. At the peak it holds
   * the body, each request's params as bytes, and one request's tree ({@link #MEMORY_PER_BYTE}).
   *
   * @throws Refused the answer for the first problem found
   */
  static List<Entry> parse(byte[] body) throws Refused {
    return entries(body, check(body));
  }

  /**
   * A batch body read once and found sound: its syntax and its top level ({@link #parse}'s first
   * read), what reading its requests will take ({@link #memory}).
   */
  record Checked(int requests, long bodyBytes, long largestRequestTokens) {
    /**
     * The heap the second read takes at its peak, bytes: the body and each request's params
     * ({@link #MEMORY_PER_BYTE} a byte), and the tree of its largest request ({@link
     * #TREE_BYTES_PER_TOKEN} a token: {@code {}} is 3 bytes of body and a tree node of ~100).
     */
    long memory() {
      return MEMORY_PER_BYTE * bodyBytes + TREE_BYTES_PER_TOKEN * largestRequestTokens;
    }
  }

  /**
   * Reads {@code body} once and checks what its whole tree would be checked for and its top level,
   * keeping neither: see {@link #parse}.
   *
   * @throws Refused the answer for the first problem found
   */
  static Checked check(byte[] body) throws Refused {
    if (body.length > MAX_BYTES) {
      throw new Refused(ApiError.requestTooLarge("a batch may be at most 256 MB; this one is " + body.length + " bytes")
          .because(RefusalReason.BODY_TOO_LARGE));
    }
    TopLevel top = topLevel(body);
    if (top == null) {
      throw bad(RefusalReason.BODY_EMPTY, "request body is empty; expected a JSON object");
    }
    if (!top.object()) {
      throw bad(RefusalReason.BODY_NOT_OBJECT, "request body must be a JSON object");
    }
    if (top.requests() == null) {
      throw bad("requests: Field required");
    }
    if (top.requests() < 0) {
      throw bad("requests: Input should be a valid list");
    }
    if (top.requests() == 0) {
      throw bad("requests: List should have at least 1 item after validation, not 0");
    }
    if (top.requests() > MAX_REQUESTS) {
      throw new Refused(ApiError.requestTooLarge(
          "a batch may hold at most " + MAX_REQUESTS + " requests; this one has " + top.requests())
          .because(RefusalReason.BODY_TOO_LARGE));
    }
    if (top.extra() != null) {
      throw bad(ClientText.shown(top.extra()) + ": Extra inputs are not permitted");
    }
    return new Checked(top.requests(), body.length, top.largestRequestTokens());
  }

  /**
   * What a batch body's top level holds: whether it is an object, its {@code requests} (null:
   * absent; -1: not a list; else how many), its first field that is not {@code requests}, and the
   * most JSON tokens one request takes.
   */
  @JsonDeserialize(using = TopLevelReader.class)
  private record TopLevel(boolean object, Integer requests, String extra, long largestRequestTokens) {}

  /**
   * Reads the whole body once, as its tree would be read — UTF-8 only, every field once at every
   * depth, floats as {@link java.math.BigDecimal}s, nothing after the value, {@link Json#MAPPER}'s
   * limits — keeping only its top level.
   *
   * @return null for an empty body
   */
  private static TopLevel topLevel(byte[] body) throws Refused {
    try (JsonParser parser = Json.MAPPER.createParser(body)) {
      // every field once at every depth: params are rebuilt from a tree, which would keep one of two silently
      parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      JsonToken first = parser.nextToken();
      if (first != null && !JsonSyntax.readsUtf8(parser)) {
        throw bad(RefusalReason.BODY_NOT_UTF8, JsonSyntax.NOT_UTF8); // as /v1/messages: Jackson would decode it, and its params pass on as UTF-8
      }
      refuseIfNotUtf8(body); // as /v1/messages: an overlong form or a surrogate would pass the parser
      if (first == null) {
        return null;
      }
      if (first == JsonToken.VALUE_NULL) {
        return new TopLevel(false, null, null, 0);
      }
      return readChecked(parser, TopLevel.class);
    } catch (IOException e) {
      refuseIfNotUtf8(body); // the parser stopped at a bad byte: say where
      throw bad(RefusalReason.BODY_NOT_JSON, "request body is not valid JSON: " + JsonSyntax.describe(e));
    } catch (NumberFormatException e) { // a float no BigDecimal holds (1e99999999999), as Json.tryParse
      throw bad(RefusalReason.BODY_NOT_JSON, "request body is not valid JSON: a number is out of range");
    }
  }

  /**
   * The requests of a body {@link #check} found sound, each read and checked a tree at a time.
   *
   * @throws Refused the answer for the first request that fails its checks
   */
  static List<Entry> entries(byte[] body, Checked checked) throws Refused {
    List<Entry> entries = new ArrayList<>(checked.requests());
    Set<String> seen = new HashSet<>();
    try (JsonParser parser = Json.MAPPER.createParser(body)) {
      parser.nextToken(); // the object
      while (parser.nextToken() == JsonToken.FIELD_NAME && !parser.currentName().equals("requests")) {
        parser.nextToken();
        parser.skipChildren();
      }
      parser.nextToken(); // the list
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        entries.add(entry(ONE_OF_MANY.readTree(parser), "requests." + entries.size(), seen));
      }
    } catch (IOException e) {
      throw new IllegalStateException("a body read whole once failed a second read", e);
    }
    return entries;
  }

  /** Reads the value at {@code parser} as {@code type} with the mapper's checks (nothing after it), duplicates refused by place. */
  private static <T> T readChecked(JsonParser parser, Class<T> type) throws IOException, Refused {
    try {
      return Json.MAPPER.readValue(parser, type);
    } catch (JsonParseException e) {
      if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field '")) {
        throw bad(RefusalReason.DUPLICATE_FIELD, place(parser.getParsingContext()) + ": given more than once");
      }
      throw e;
    }
  }

  /**
   * Reads a batch body's top level, walking the rest token by token without keeping it (floats
   * read as the tree reads them, so that one no BigDecimal holds fails here too).
   */
  static final class TopLevelReader extends StdDeserializer<TopLevel> {
    TopLevelReader() {
      super(TopLevel.class);
    }

    @Override
    public TopLevel deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      if (parser.currentToken() != JsonToken.START_OBJECT) {
        walk(parser);
        return new TopLevel(false, null, null, 0);
      }
      Integer requests = null;
      String extra = null;
      long largest = 0;
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        JsonToken value = parser.nextToken();
        if (name.equals("requests") && value == JsonToken.START_ARRAY) {
          int n = 0;
          while (parser.nextToken() != JsonToken.END_ARRAY) {
            largest = Math.max(largest, walk(parser));
            n++;
          }
          requests = n;
        } else {
          walk(parser);
          if (name.equals("requests")) {
            requests = -1;
          } else if (extra == null) {
            extra = name;
          }
        }
      }
      return new TopLevel(true, requests, extra, largest);
    }

    /** Walks the value at the parser's token to its end; how many tokens it took. */
    private static long walk(JsonParser parser) throws IOException {
      int depth = 0;
      long tokens = 0;
      JsonToken token = parser.currentToken();
      while (true) {
        tokens++;
        if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
          depth++;
        } else if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
          depth--;
        } else if (token == JsonToken.VALUE_NUMBER_FLOAT) {
          parser.getDecimalValue();
        }
        if (depth == 0) {
          return tokens;
        }
        token = parser.nextToken();
      }
    }
  }

  /** Where {@code context} is, as the API names a place: {@code requests.1.params.model}, each name cut. */
  private static String place(JsonStreamContext context) {
    List<String> steps = new ArrayList<>();
    for (JsonStreamContext at = context; at != null && !at.inRoot(); at = at.getParent()) {
      steps.addFirst(at.inArray() ? String.valueOf(at.getCurrentIndex()) : ClientText.shown(at.getCurrentName()));
    }
    return String.join(".", steps);
  }

  private static Entry entry(JsonNode request, String at, Set<String> seen) throws Refused {
    if (!request.isObject()) {
      throw bad(at + ": Input should be a valid dictionary");
    }
    JsonNode customId = request.get("custom_id");
    if (customId == null) {
      throw bad(at + ".custom_id: Field required");
    }
    if (!customId.isTextual() || !CUSTOM_ID.matcher(customId.asText()).matches()) {
      throw bad(at + ".custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'");
    }
    if (!seen.add(customId.asText())) {
      throw bad("Duplicate custom_id '" + customId.asText() + "' at " + at + ": each request of a batch needs its own");
    }
    JsonNode params = request.get("params");
    if (params == null) {
      throw bad(at + ".params: Field required");
    }
    if (!params.isObject()) {
      throw bad(at + ".params: Input should be a valid dictionary");
    }
    for (Map.Entry<String, JsonNode> field : request.properties()) {
      if (!field.getKey().equals("custom_id") && !field.getKey().equals("params")) {
        throw bad(at + "." + ClientText.shown(field.getKey()) + ": Extra inputs are not permitted");
      }
    }
    checkParams(params, at + ".params");
    byte[] bytes;
    try {
      bytes = Json.MAPPER.writeValueAsBytes(params);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    MessagesRequest parsed;
    try {
      parsed = MessagesRequest.parse(bytes);
    } catch (MessagesRequest.InvalidRequestException e) {
      throw bad(e.reason(), at + ".params." + e.getMessage());
    }
    return new Entry(customId.asText(), bytes, parsed.model());
  }

  /** The checks the API makes of every request at creation: the fields a Messages call cannot do without. */
  private static void checkParams(JsonNode params, String at) throws Refused {
    JsonNode maxTokens = params.get("max_tokens");
    if (maxTokens == null) {
      throw bad(at + ".max_tokens: Field required");
    }
    if (!maxTokens.isIntegralNumber() || !maxTokens.canConvertToLong() || maxTokens.asLong() < 1) {
      throw bad(at + ".max_tokens: Input should be a valid integer greater than or equal to 1");
    }
    JsonNode messages = params.get("messages");
    if (messages == null) {
      throw bad(at + ".messages: Field required");
    }
    if (!messages.isArray()) {
      throw bad(at + ".messages: Input should be a valid list");
    }
    JsonNode stream = params.get("stream");
    if (stream != null && stream.asBoolean(false)) {
      throw bad(at + ".stream: a batch request cannot stream");
    }
  }

  /** A batch whose fields are not the API's (a missing, unknown or malformed one): {@link RefusalReason#BAD_FIELD}. */
  private static Refused bad(String message) {
    return bad(RefusalReason.BAD_FIELD, message);
  }

  private static Refused bad(RefusalReason reason, String message) {
    return new Refused(ApiError.invalidRequest(message).because(reason));
  }
}
