package dev.levee.anthropic;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamWriteConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/** The one Jackson mapper of the wire protocol, configured for fidelity. */
public final class Json {

  /** The deepest nesting of arrays and objects accepted (Jackson's default is 1000). */
  public static final int MAX_NESTING_DEPTH = 2000;

  /** The longest number accepted, in characters. */
  public static final int MAX_NUMBER_LENGTH = 10_000;

  /** Buffer sets kept for reuse by parsers and generators; more in use at once are allocated and dropped. */
  private static final int RECYCLED_BUFFERS = 64;

  /**
   * Shared and thread-safe. Floats are read as {@link java.math.BigDecimal} so that numbers pass
   * through unchanged ({@code 0.70} stays {@code 0.70}).
   *
   * <p>Parsers and generators take their buffers from one bounded pool shared by all threads:
   * Jackson's default pool is per thread, and every request runs on a new virtual thread, so it
   * would allocate fresh buffers (about 16 KiB) for every parse. The pool takes no lock ({@link
   * SlotRecyclerPool}).
   */
  public static final ObjectMapper MAPPER = JsonMapper.builder(JsonFactory.builder()
          .recyclerPool(new SlotRecyclerPool(RECYCLED_BUFFERS))
          .streamReadConstraints(StreamReadConstraints.builder()
              .maxStringLength(Integer.MAX_VALUE) // a base64 PDF in one string; the body limit bounds it
              .maxNestingDepth(MAX_NESTING_DEPTH)
              .maxNumberLength(MAX_NUMBER_LENGTH)
              .build())
          .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(2000).build())
          .build())
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
      .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
      .build();

  private Json() {}

  /** Serializes a tree (or any value) to UTF-8 bytes. */
  public static byte[] bytes(Object value) {
    try {
      return MAPPER.writeValueAsBytes(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Serializes a tree (or any value) to a string. */
  public static String string(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Parses JSON, or returns null when it is not valid JSON or holds a number that {@link
   * java.math.BigDecimal} cannot hold (floats are read as BigDecimal: an exponent beyond an int).
   */
  public static JsonNode tryParse(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return null;
    }
    try {
      return MAPPER.readTree(bytes);
    } catch (IOException | NumberFormatException e) { // a number no BigDecimal holds (1e99999999999) is not JSON we read
      return null;
    }
  }

  /** Parses JSON, or returns null when it is not valid JSON, as {@link #tryParse(byte[])}. */
  public static JsonNode tryParse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return MAPPER.readTree(text);
    } catch (IOException | NumberFormatException e) { // a number no BigDecimal holds (1e99999999999) is not JSON we read
      return null;
    }
  }
}
