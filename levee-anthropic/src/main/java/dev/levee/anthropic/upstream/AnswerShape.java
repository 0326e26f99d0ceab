package dev.levee.anthropic.upstream;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.TokenUsage;
import java.io.IOException;
import java.util.Optional;

/**
 * What a 200 JSON answer of an endpoint must look like before it is relayed as a success. A body
 * that is cut short, not JSON, or not the promised shape is the upstream's failure (a server
 * error: retried, next target, counted by the breaker), never a success the client's SDK then
 * fails to parse (issue 9, item 3).
 *
 * <p>The checks are the least every client relies on, so that a faithful but newer API still
 * passes: a message (the Anthropic "Messages" reference) is an object with {@code "type":
 * "message"}, a {@code content} array of objects with a {@code type}, and a {@code usage} object;
 * a token count is an object with a numeric {@code input_tokens}. Unknown fields pass. A field
 * given twice counts as its last value.
 *
 * <p>Checked in one streaming pass over the body, no tree: every answer goes through here. The
 * same pass says whether a message is finished and what its usage was ({@link #check}), so the
 * answer cache and the metrics take the answer without reading it again.
 */
public enum AnswerShape {

  /** {@code POST /v1/messages}. */
  MESSAGE {
    @Override
    Scan scan() {
      return new Scan() {
        boolean message;
        boolean contentArray;
        boolean blocksTyped;
        TokenUsage usage; // null while no usage object was read
        boolean stopped;

        @Override
        void field(String name, JsonToken value, JsonParser p) throws IOException {
          switch (name) {
            case "type" -> message = value == JsonToken.VALUE_STRING && "message".equals(p.getText());
            case "stop_reason" -> stopped = value == JsonToken.VALUE_STRING;
            case "content" -> {
              contentArray = value == JsonToken.START_ARRAY;
              blocksTyped = !contentArray || blocksTyped(p);
            }
            case "usage" -> usage = value == JsonToken.START_OBJECT ? TokenUsage.of(p) : null; // the last counts
            default -> { }
          }
        }

        @Override
        Optional<String> verdict() {
          if (!message) {
            return Optional.of("its type is not \"message\"");
          }
          if (!contentArray) {
            return Optional.of("it has no content array");
          }
          if (!blocksTyped) {
            return Optional.of("a content block has no type");
          }
          return usage != null ? Optional.empty() : Optional.of("it has no usage object");
        }

        @Override
        boolean finished() {
          return stopped;
        }

        @Override
        TokenUsage usage() {
          return usage;
        }
      };
    }
  },

  /** {@code POST /v1/messages/count_tokens}. */
  TOKEN_COUNT {
    @Override
    Scan scan() {
      return new Scan() {
        boolean numeric;

        @Override
        void field(String name, JsonToken value, JsonParser p) {
          if (name.equals("input_tokens")) {
            numeric = value == JsonToken.VALUE_NUMBER_INT || value == JsonToken.VALUE_NUMBER_FLOAT;
          }
        }

        @Override
        Optional<String> verdict() {
          return numeric ? Optional.empty() : Optional.of("it has no numeric input_tokens");
        }
      };
    }
  },

  /** Any other endpoint: a JSON object. */
  OBJECT {
    @Override
    Scan scan() {
      return new Scan() {
        @Override
        void field(String name, JsonToken value, JsonParser p) { }

        @Override
        Optional<String> verdict() {
          return Optional.empty();
        }
      };
    }
  };

  /** The shape a 200 answer to {@code path} must have. */
  public static AnswerShape forPath(String path) {
    return switch (path) {
      case "/v1/messages" -> MESSAGE;
      case "/v1/messages/count_tokens" -> TOKEN_COUNT;
      default -> OBJECT;
    };
  }

  /**
   * What {@link #check} found.
   *
   * @param problem what is wrong, as {@link #problem}; empty when the body has the shape
   * @param finished whether the body, with the shape, is a finished message: {@link #MESSAGE}
   *     with a string {@code stop_reason} (what the answer cache keeps); always false for the
   *     other shapes
   * @param usage a {@link #MESSAGE}'s {@code usage} counts (the last {@code usage} given); {@link TokenUsage#NONE} for the other shapes and when there is a problem
   */
  public record Verdict(Optional<String> problem, boolean finished, TokenUsage usage) {
    /** A problem found before or instead of the shape. */
    public static Verdict of(String problem) {
      return new Verdict(Optional.of(problem), false, TokenUsage.NONE);
    }
  }

  /**
   * What is wrong with {@code body} as this shape, in a few words for logs and error messages, or
   * empty when it is fine. Invalid or truncated JSON, or anything after the top-level value, is
   * "not complete JSON" before any other problem.
   */
  public Optional<String> problem(byte[] body) {
    return check(body).problem();
  }

  /** {@link #problem}, and in the same pass whether the body is a finished message. */
  public Verdict check(byte[] body) {
    if (body == null || body.length == 0) {
      return Verdict.of("the body is empty");
    }
    try (JsonParser p = Json.MAPPER.getFactory().createParser(body)) {
      JsonToken first = p.nextToken();
      if (first != JsonToken.START_OBJECT) {
        p.skipChildren();
        return Verdict.of(first != null && p.nextToken() != null ? INCOMPLETE : "the body is not a JSON object");
      }
      Scan scan = scan();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        JsonToken value = p.nextToken();
        scan.field(name, value, p);
        p.skipChildren(); // no-op when the scan consumed the value or it is a scalar
      }
      if (p.nextToken() != null) {
        return Verdict.of(INCOMPLETE);
      }
      Optional<String> problem = scan.verdict();
      return problem.isPresent() ? Verdict.of(problem.get()) : new Verdict(problem, scan.finished(), scan.usage());
    } catch (IOException e) {
      return Verdict.of(INCOMPLETE);
    }
  }

  /** Reads one top-level field at a time; leaves the parser on the value's last token, or on its start. */
  abstract Scan scan();

  abstract static class Scan {
    abstract void field(String name, JsonToken value, JsonParser p) throws IOException;

    abstract Optional<String> verdict();

    /** Whether the body, given no problem, is a finished message. */
    boolean finished() {
      return false;
    }

    /** The body's usage counts, given no problem. */
    TokenUsage usage() {
      return TokenUsage.NONE;
    }
  }

  private static final String INCOMPLETE = "the body is not complete JSON";

  /** Reads a content array to its end: whether every element is an object whose {@code type} is a string. */
  private static boolean blocksTyped(JsonParser p) throws IOException {
    boolean all = true;
    JsonToken element;
    while ((element = p.nextToken()) != JsonToken.END_ARRAY) {
      if (element == null) {
        throw new java.io.EOFException("the content array is not closed");
      }
      if (element != JsonToken.START_OBJECT) {
        all = false;
        p.skipChildren();
        continue;
      }
      boolean typed = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean type = p.currentName().equals("type");
        JsonToken value = p.nextToken();
        if (type) {
          typed = value == JsonToken.VALUE_STRING;
        }
        p.skipChildren();
      }
      all &= typed;
    }
    return all;
  }
}
