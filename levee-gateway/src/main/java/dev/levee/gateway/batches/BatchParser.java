package dev.levee.gateway.batches;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.JsonNode;
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
   * The bytes of heap a parse takes per byte of body, at its peak: the body, its tree and each
   * request's params as bytes, held together. Measured: a 103 MB batch of 100,000 requests failed
   * with {@code OutOfMemoryError} under {@code -Xmx384m} and was taken under {@code -Xmx512m}, with
   * the gateway's own ~50 MB beside it (3.2–4.5 per byte).
   */
  static final int MEMORY_PER_BYTE = 4;

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

  static List<Entry> parse(byte[] body) throws Refused {
    if (body.length > MAX_BYTES) {
      throw new Refused(ApiError.requestTooLarge("a batch may be at most 256 MB; this one is " + body.length + " bytes")
          .because(RefusalReason.BODY_TOO_LARGE));
    }
    JsonNode root;
    try (JsonParser parser = Json.MAPPER.createParser(body)) {
      // every field once at every depth: params are rebuilt from the tree, which would keep one of two silently
      parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      if (parser.nextToken() != null && !JsonSyntax.readsUtf8(parser)) {
        throw bad(RefusalReason.BODY_NOT_UTF8, JsonSyntax.NOT_UTF8); // as /v1/messages: Jackson would decode it, and its params pass on as UTF-8
      }
      refuseIfNotUtf8(body); // as /v1/messages: an overlong form or a surrogate would pass the parser
      root = readTree(parser);
    } catch (IOException e) {
      refuseIfNotUtf8(body); // the parser stopped at a bad byte: say where
      throw bad(RefusalReason.BODY_NOT_JSON, "request body is not valid JSON: " + JsonSyntax.describe(e));
    } catch (NumberFormatException e) { // a float no BigDecimal holds (1e99999999999), as Json.tryParse
      throw bad(RefusalReason.BODY_NOT_JSON, "request body is not valid JSON: a number is out of range");
    }
    if (root == null || root.isMissingNode()) {
      throw bad(RefusalReason.BODY_EMPTY, "request body is empty; expected a JSON object");
    }
    if (!root.isObject()) {
      throw bad(RefusalReason.BODY_NOT_OBJECT, "request body must be a JSON object");
    }
    JsonNode requests = root.get("requests");
    if (requests == null) {
      throw bad("requests: Field required");
    }
    if (!requests.isArray()) {
      throw bad("requests: Input should be a valid list");
    }
    if (requests.isEmpty()) {
      throw bad("requests: List should have at least 1 item after validation, not 0");
    }
    if (requests.size() > MAX_REQUESTS) {
      throw new Refused(ApiError.requestTooLarge(
          "a batch may hold at most " + MAX_REQUESTS + " requests; this one has " + requests.size())
          .because(RefusalReason.BODY_TOO_LARGE));
    }
    for (Map.Entry<String, JsonNode> field : root.properties()) {
      if (!field.getKey().equals("requests")) {
        throw bad(ClientText.shown(field.getKey()) + ": Extra inputs are not permitted");
      }
    }
    List<Entry> entries = new ArrayList<>(requests.size());
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < requests.size(); i++) {
      entries.add(entry(requests.get(i), "requests." + i, seen));
    }
    return entries;
  }

  /** The tree {@code parser} reads; a field given twice is refused in the words of {@code /v1/messages}, with its place. */
  private static JsonNode readTree(JsonParser parser) throws IOException, Refused {
    try {
      return Json.MAPPER.readTree(parser);
    } catch (JsonParseException e) {
      if (e.getOriginalMessage() != null && e.getOriginalMessage().startsWith("Duplicate field '")) {
        throw bad(RefusalReason.DUPLICATE_FIELD, place(parser.getParsingContext()) + ": given more than once");
      }
      throw e;
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
