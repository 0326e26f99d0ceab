package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fields of an event as the relay reads them in one streaming pass: exactly what the event's
 * tree says, and nothing for what the mapper refuses.
 */
class EventFieldsTest {

  private static final List<String> EVENTS = List.of(
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}",
      "{\"type\":\"content_block_delta\",\"index\":12,\"delta\":{\"type\":\"text_delta\",\"text\":\"a \\\"quoted\\\" line\\nnext\\ttab \\\\ \\/ \\b\\f\\r\"}}",
      "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":\"héllo 世界 🙂 \\u00e9\\ud83d\\ude42\"}}",
      "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"Let me think\"}}",
      "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYTIt\"}}",
      "{\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\": \\\"San Fra\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"citations_delta\",\"citation\":{\"type\":\"char_location\",\"cited_text\":\"x\",\"document_index\":0,\"start_char_index\":0,\"end_char_index\":1}}}",
      "{\"type\":\"content_block_stop\",\"index\":4}",
      "{\"type\":\"message_stop\"}",
      "{\"type\": \"ping\"}",
      " { \"index\" : -3 , \"delta\" : { \"text\" : \"\" , \"type\" : \"text_delta\" } } \n",
      "{\"index\":0,\"index\":7,\"delta\":{\"type\":\"a\"},\"delta\":{\"text\":\"b\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"x\",\"extra\":[1,-2,0,true,false,null,{\"a\":[]},\"s\"]}}",
      "{\"index\":1.5,\"delta\":{\"type\":\"text_delta\",\"text\":\"f\"}}",
      "{\"index\":\"2\",\"delta\":{\"type\":7,\"text\":null}}",
      "{\"index\":12345678901,\"delta\":[]}",
      "{\"index\":{\"a\":1},\"delta\":\"text\"}",
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}",
      "{}",
      "[]",
      "\"text\"",
      "",
      "{\"type\":\"content_blo",
      "{\"index\":01}",
      "{\"index\":1}}",
      "{\"index\":1} x",
      "{\"delta\":{\"text\":\"bad \\x escape\"}}",
      "{\"delta\":{\"text\":\"raw\ttab\"}}",
      "{\"a\":tru}",
      "{\"a\":-}",
      "{\"a\":1,}",
      "{'a':1}",
      // the common shape read without a parser (DeltaScan), and its near misses, which Jackson reads
      "{\"type\":\"content_block_delta\",\"index\":123456789,\"delta\":{\"type\":\"text_delta\",\"text\":\"\"}}",
      "{\"type\":\"content_block_delta\",\"index\":1234567890,\"delta\":{\"type\":\"text_delta\",\"text\":\"big\"}}",
      "{\"type\":\"content_block_delta\",\"index\":00,\"delta\":{\"type\":\"text_delta\",\"text\":\"zeros\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"del \u007f \\u0041\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"end\\\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}} ",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"}}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\"},\"x\":1}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"words\":\"a\"}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":7}}",
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"a\",\"text\":\"b\"}}");

  /** The common stops, read without a parser (DeltaScan), and their near misses, which Jackson reads. */
  private static final List<String> STOPS = List.of(
      "{\"type\":\"content_block_stop\",\"index\":0}",
      "{\"type\":\"content_block_stop\",\"index\":123456789}",
      "{\"type\":\"message_stop\"}",
      // near misses
      "{\"type\":\"content_block_stop\",\"index\":1234567890}",
      "{\"type\":\"content_block_stop\",\"index\":00}",
      "{\"type\":\"content_block_stop\",\"index\":-1}",
      "{\"type\":\"content_block_stop\",\"index\":}",
      "{\"type\":\"content_block_stop\",\"index\":1 }",
      "{\"type\":\"content_block_stop\",\"index\":1}}",
      "{\"type\":\"content_block_stop\",\"index\":1,\"x\":2}",
      "{\"type\":\"content_block_stop\",\"index\":\"1\"}",
      "{\"type\":\"message_stop\"} ",
      "{\"type\":\"message_stop\",\"index\":1}",
      "{\"type\":\"message_stop\"");

  @Test
  void theStreamingReadSaysWhatTheTreeSays() {
    for (String event : EVENTS) {
      assertSame(event.getBytes(StandardCharsets.UTF_8));
    }
    for (String event : STOPS) {
      assertSame(event.getBytes(StandardCharsets.UTF_8));
    }
  }

  /** The common stops are scanned as Jackson reads them, and anything near them is left to Jackson. */
  @Test
  void theCommonStopsAreScannedAndTheirNearMissesAreLeftToJackson() {
    for (String data : STOPS.subList(0, 3)) {
      EventFields scanned = DeltaScan.scan(data.getBytes(StandardCharsets.UTF_8));
      assertThat(scanned).as(data).isNotNull();
      assertFields(scanned, jacksonOnly(data), data);
    }
    for (String data : STOPS.subList(3, STOPS.size())) {
      assertThat(DeltaScan.scan(data.getBytes(StandardCharsets.UTF_8))).as(data).isNull();
    }
    SseEvent stop = new SseEvent("content_block_stop", STOPS.get(0));
    assertThat(stop.withIndex(12).data()).isEqualTo("{\"type\":\"content_block_stop\",\"index\":12}");
  }

  /** The API's delta types are shared strings, not decoded for every delta. */
  @Test
  void theApisDeltaTypesAreNotDecodedPerDelta() {
    for (String type : List.of("text_delta", "thinking_delta", "input_json_delta", "signature_delta")) {
      String data = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"" + type + "\",\"text\":\"a\"}}";
      assertThat(DeltaScan.scan(data.getBytes(StandardCharsets.UTF_8)).deltaType()).isSameAs(type);
    }
    String other = "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"new_delta\",\"text\":\"a\"}}";
    assertThat(DeltaScan.scan(other.getBytes(StandardCharsets.UTF_8)).deltaType()).isEqualTo("new_delta");
  }

  @Test
  void aDeltaReadsAsItsTreeWould() {
    EventFields f = EventFields.read(EVENTS.get(2).getBytes(StandardCharsets.UTF_8));
    assertThat(f.index()).isEqualTo(1);
    assertThat(f.deltaType()).isEqualTo("text_delta");
    assertThat(f.text()).isEqualTo(Json.tryParse(EVENTS.get(2)).path("delta").path("text").asText())
        .isEqualTo("héllo 世界 🙂 é🙂");
    assertThat(f.thinking()).isEmpty();
    assertThat(f.citation().isMissingNode()).isTrue();
  }

  /** The common text delta is read without Jackson's parser; what is not exactly that shape is left to Jackson. */
  @Test
  void theCommonDeltaIsScannedAndItsNearMissesAreLeftToJackson() {
    EventFields common = DeltaScan.scan(EVENTS.get(1).getBytes(StandardCharsets.UTF_8));
    assertThat(common).isNotNull();
    assertThat(common.text()).isEqualTo("a \"quoted\" line\nnext\ttab \\ / \b\f\r");
    assertFields(common, jacksonOnly(EVENTS.get(1)), EVENTS.get(1));
    assertThat(DeltaScan.scan(EVENTS.get(32).getBytes(StandardCharsets.UTF_8))).isNotNull();
    List<String> leftToJackson = new ArrayList<>(List.of(EVENTS.get(2), EVENTS.get(6), EVENTS.get(10)));
    leftToJackson.addAll(EVENTS.subList(33, EVENTS.size())); // the near misses
    for (String data : leftToJackson) {
      assertThat(DeltaScan.scan(data.getBytes(StandardCharsets.UTF_8))).as(data).isNull();
    }
  }

  /** The common shape damaged byte by byte: whatever the scan accepts, Jackson reads the same (the strict check stays). */
  @Test
  void damagedCommonDeltasReadAsTheirTrees() {
    Random random = new Random(9);
    byte[] alphabet = "{}[]\":,\\ \t\n-0123456789.eEtrufalsnbr/\u00e9xu\u007f".getBytes(StandardCharsets.UTF_8);
    int scanned = 0;
    for (int round = 0; round < 20_000; round++) {
      int pick = random.nextInt(5);
      byte[] bytes = (pick < 2 ? EVENTS.get(pick) : STOPS.get(pick - 2)).getBytes(StandardCharsets.UTF_8);
      int at = random.nextInt(bytes.length);
      switch (random.nextInt(3)) {
        case 0 -> bytes[at] = alphabet[random.nextInt(alphabet.length)];
        case 1 -> bytes[at] = (byte) random.nextInt(256);
        default -> bytes = cut(bytes, at);
      }
      EventFields fast = DeltaScan.scan(bytes);
      if (fast != null) {
        scanned++;
        assertFields(fast, jacksonOnly(new String(bytes, StandardCharsets.ISO_8859_1)), new String(bytes,
            StandardCharsets.UTF_8));
      }
      assertSame(bytes);
    }
    assertThat(scanned).isGreaterThan(1_000);
  }

  /** What Jackson alone reads from {@code data} (its prefix spoilt so that the scan does not take it, then restored). */
  private static EventFields jacksonOnly(String data) {
    byte[] bytes = data.getBytes(StandardCharsets.ISO_8859_1);
    byte[] spaced = new byte[bytes.length + 1];
    spaced[0] = ' ';
    System.arraycopy(bytes, 0, spaced, 1, bytes.length);
    EventFields f = EventFields.read(spaced);
    assertThat(f).isNotSameAs(EventFields.NOT_AN_OBJECT);
    if (f.indexStart >= 0) { // offsets in the unspaced bytes
      f.indexStart--;
      f.indexEnd--;
    }
    return f;
  }

  @Test
  void malformedBytesAreNotAnObject() {
    byte[] invalidUtf8 = "{\"delta\":{\"text\":\"a?b\"}}".getBytes(StandardCharsets.UTF_8);
    invalidUtf8[18] = (byte) 0xff;
    assertThat(EventFields.read(invalidUtf8)).isSameAs(EventFields.NOT_AN_OBJECT);
    assertThat(EventFields.read("{\"type\":\"content_blo".getBytes(StandardCharsets.UTF_8)))
        .isSameAs(EventFields.NOT_AN_OBJECT);
  }

  /** Thousands of events damaged byte by byte: the streaming read agrees with the tree on each. */
  @Test
  void damagedEventsReadAsTheirTrees() {
    Random random = new Random(11);
    byte[] alphabet = "{}[]\":,\\ \t\n-0123456789.eEtrufalsn\u00e9xu".getBytes(StandardCharsets.UTF_8);
    int accepted = 0;
    for (int round = 0; round < 10_000; round++) {
      byte[] bytes = EVENTS.get(random.nextInt(EVENTS.size())).getBytes(StandardCharsets.UTF_8);
      if (bytes.length == 0) {
        continue;
      }
      int edits = 1 + random.nextInt(3);
      for (int e = 0; e < edits && bytes.length > 0; e++) {
        int at = random.nextInt(bytes.length);
        switch (random.nextInt(3)) {
          case 0 -> bytes[at] = alphabet[random.nextInt(alphabet.length)];
          case 1 -> bytes[at] = (byte) random.nextInt(256);
          default -> bytes = cut(bytes, at);
        }
      }
      if (assertSame(bytes)) {
        accepted++;
      }
    }
    assertThat(accepted).isGreaterThan(500); // objects were read, not only refused
  }

  @Test
  void aNewIndexReplacesOnlyTheDigits() {
    String data = "{\"type\":\"content_block_delta\", \"index\": 3 ,\"delta\":{\"type\":\"text_delta\",\"text\":\"é\"}}";
    SseEvent event = new SseEvent("content_block_delta", data);

    SseEvent moved = event.withIndex(12);

    assertThat(moved.data()).isEqualTo(data.replace("\"index\": 3 ", "\"index\": 12 "));
    assertThat(moved.fields().index()).isEqualTo(12);
    assertFields(moved.fields(), EventFields.read(moved.dataBytes()), moved.data());
    assertThat(event.withIndex(3)).isSameAs(event);
  }

  @Test
  void anIndexThatIsNotAPlainIntIsSetThroughATree() {
    SseEvent event = new SseEvent("content_block_stop", "{\"type\":\"content_block_stop\"}");

    SseEvent moved = event.withIndex(2);

    assertThat(moved.data()).isEqualTo("{\"type\":\"content_block_stop\",\"index\":2}");
    assertThat(moved.fields().index()).isEqualTo(2);
  }

  private static byte[] cut(byte[] bytes, int at) {
    byte[] out = new byte[bytes.length - 1];
    System.arraycopy(bytes, 0, out, 0, at);
    System.arraycopy(bytes, at + 1, out, at, bytes.length - at - 1);
    return out;
  }

  /** Whether the bytes are one JSON object; fails when the streaming read differs from the tree. */
  private static boolean assertSame(byte[] bytes) {
    String shown = new String(bytes, StandardCharsets.UTF_8);
    EventFields read = EventFields.read(bytes);
    JsonNode tree = Json.tryParse(bytes);
    if (tree == null || !tree.isObject()) {
      assertThat(read).as("not one object: %s", shown).isSameAs(EventFields.NOT_AN_OBJECT);
      return false;
    }
    JsonNode delta = tree.path("delta");
    assertThat(List.<Object>of(read.index(), read.deltaType(), read.text(), read.thinking(), read.partialJson(),
        read.signature(), read.citation().toString()))
        .as(shown)
        .isEqualTo(List.of(tree.path("index").asInt(), delta.path("type").asText(), delta.path("text").asText(),
            delta.path("thinking").asText(), delta.path("partial_json").asText(), delta.path("signature").asText(),
            delta.path("citation").toString()));
    return true;
  }

  private static void assertFields(EventFields a, EventFields b, String shown) {
    List<Object> left = new ArrayList<>(List.of(a.index(), a.indexStart, a.indexEnd, a.deltaType(), a.text(),
        a.thinking(), a.partialJson(), a.signature(), a.citation().toString()));
    List<Object> right = List.of(b.index(), b.indexStart, b.indexEnd, b.deltaType(), b.text(), b.thinking(),
        b.partialJson(), b.signature(), b.citation().toString());
    assertThat(left).as(shown).isEqualTo(right);
  }
}
