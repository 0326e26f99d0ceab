package dev.levee.anthropic;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import dev.levee.anthropic.error.ClientText;
import java.io.CharConversionException;
import java.io.IOException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Says what is wrong with text that is not valid JSON in words a client can act on, with the line
 * and column, instead of the parser's own message (which names Jackson's classes, features and
 * character codes). Used for every body Levee refuses as malformed.
 */
public final class JsonSyntax {

  private static final Pattern UNEXPECTED_CHAR =
      Pattern.compile("Unexpected character \\('(.+?)' \\(code (\\d+)[^)]*\\)\\)(?::\\s*(.*))?", Pattern.DOTALL);
  private static final Pattern UNRECOGNIZED = Pattern.compile("Unrecognized token '(.*?)'", Pattern.DOTALL);
  private static final Pattern NON_STANDARD = Pattern.compile("Non-standard token '(.*?)'");
  private static final Pattern CONTROL_CHAR = Pattern.compile("Illegal unquoted character \\(\\(CTRL-CHAR, code (\\d+)\\)\\)");

  /**
   * Why a body in UTF-16 or UTF-32 is refused: JSON exchanged between systems must be UTF-8 (RFC
   * 8259 section 8.1), and the upstream would read such a body otherwise than Levee.
   */
  public static final String NOT_UTF8 = "request body is not UTF-8; JSON must be sent as UTF-8 (RFC 8259 section 8.1)";

  private JsonSyntax() {}

  /**
   * Whether {@code parser}, made on bytes and past its first token, reads them as UTF-8 (a UTF-8
   * BOM included). Jackson detects UTF-16 and UTF-32 by itself, from zero bytes or a BOM, and
   * decodes them; such a parser has no byte offsets. Every body Levee reads as JSON is checked so
   * ({@link #NOT_UTF8}): the Messages and the Message Batches endpoints alike.
   */
  public static boolean readsUtf8(JsonParser parser) {
    return parser.currentTokenLocation().getByteOffset() >= 0;
  }

  /**
   * What is wrong, e.g. {@code unexpected '}' where a field name in double quotes was expected
   * (line 1, column 18)}. Never names a Java or Jackson type.
   */
  public static String describe(IOException e) {
    String what = what(e);
    JsonLocation at = e instanceof JacksonException je ? je.getLocation() : null;
    if (at == null || at.getLineNr() < 1 || at.getColumnNr() < 1) {
      return what;
    }
    return what + " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")";
  }

  private static String what(IOException e) {
    String message = e instanceof JacksonException je ? je.getOriginalMessage() : e.getMessage();
    message = message == null ? "" : message;
    if (e instanceof StreamConstraintsException) {
      if (message.contains("nesting depth")) {
        return "it is nested more than " + Json.MAX_NESTING_DEPTH + " levels deep";
      }
      if (message.contains("Number value length")) {
        return "a number is longer than " + Json.MAX_NUMBER_LENGTH + " characters";
      }
      return "it exceeds a size limit";
    }
    if (e instanceof JsonEOFException || message.startsWith("Unexpected end-of-input")) {
      return "it ends before the JSON is complete";
    }
    if (e instanceof CharConversionException || message.startsWith("Invalid UTF-8")) {
      return "it is not valid UTF-8";
    }
    Matcher m = UNEXPECTED_CHAR.matcher(message);
    if (m.lookingAt()) {
      String expected = m.group(3) == null ? "" : expectation(m.group(3));
      return "unexpected " + character(Integer.parseInt(m.group(2))) + (expected.isEmpty() ? "" : " " + expected);
    }
    m = CONTROL_CHAR.matcher(message);
    if (m.lookingAt()) {
      return "a control character (" + codePoint(Integer.parseInt(m.group(1))) + ") inside a string must be escaped";
    }
    m = NON_STANDARD.matcher(message);
    if (m.lookingAt()) {
      return "'" + m.group(1) + "' is not a JSON value";
    }
    m = UNRECOGNIZED.matcher(message);
    if (m.lookingAt()) {
      return "unexpected '" + ClientText.shown(m.group(1)) + "'";
    }
    if (message.startsWith("Unexpected close marker")) {
      return "a closing bracket does not match its opening one";
    }
    if (message.contains("escape")) {
      return "a string has an invalid escape sequence";
    }
    return "it is not valid JSON";
  }

  /** Jackson's "was expecting X" in plain words; empty when it says nothing useful. */
  private static String expectation(String detail) {
    String d = detail.toLowerCase(Locale.ROOT);
    if (d.contains("double-quote to start field name")) return "where a field name in double quotes was expected";
    if (d.contains("comma to separate object entries")) return "where a comma or '}' was expected";
    if (d.contains("comma to separate array entries")) return "where a comma or ']' was expected";
    if (d.contains("colon to separate field name and value")) return "where ':' was expected";
    if (d.contains("hex-digit")) return "in a \\u escape (four hex digits expected)";
    if (d.contains("expected a valid value")) return "where a value was expected";
    if (d.contains("escape")) return "in an escape sequence";
    return "";
  }

  private static String character(int code) {
    return code >= 0x20 && code < 0x7f ? "'" + (char) code + "'" : "character " + codePoint(code);
  }

  private static String codePoint(int code) {
    return String.format(Locale.ROOT, "U+%04X", code);
  }
}
