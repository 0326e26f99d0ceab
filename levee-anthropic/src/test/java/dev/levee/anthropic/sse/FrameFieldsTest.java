package dev.levee.anthropic.sse;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.message.TokenUsage;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fields of a {@code message_start}, {@code content_block_start} or {@code message_delta} as
 * the relay reads them in one streaming pass: exactly what the event's tree says (its usage's
 * integral members, its token counts, its index, its block's type), and nothing for what the
 * mapper refuses.
 */
class FrameFieldsTest {

  private static final List<String> NAMES = List.of("message_start", "content_block_start", "message_delta");

  private static final String MESSAGE_START = "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\","
      + "\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-6\",\"content\":[],"
      + "\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":2095,"
      + "\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":1024,\"cache_creation\":"
      + "{\"ephemeral_5m_input_tokens\":0,\"ephemeral_1h_input_tokens\":0},\"output_tokens\":1,"
      + "\"service_tier\":\"standard\",\"server_tool_use\":{\"web_search_requests\":0}}}}";

  private static final List<String> EVENTS = List.of(
      MESSAGE_START,
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
      "{\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}}",
      "{\"type\":\"content_block_start\",\"index\":2,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01\","
          + "\"name\":\"get_weather\",\"input\":{\"nested\":{\"type\":\"not this one\",\"n\":[1,2.5,{\"x\":null}]}}}}",
      "{\"type\":\"content_block_start\",\"index\":3,\"content_block\":{\"type\":\"web_search_tool_result\","
          + "\"tool_use_id\":\"srvtoolu_01\",\"content\":[{\"type\":\"web_search_result\",\"title\":\"t\"}]}}",
      "{\"type\":\"content_block_start\",\"index\":4,\"content_block\":{\"type\":\"redacted_thinking\",\"data\":\"EmwKAhgB\"}}",
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
          + "\"usage\":{\"output_tokens\":15}}",
      "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":"
          + "{\"input_tokens\":2095,\"cache_creation_input_tokens\":0,\"cache_read_input_tokens\":1024,\"output_tokens\":503,"
          + "\"server_tool_use\":{\"web_search_requests\":1}}}",
      // fields missing, extra, elsewhere
      "{}",
      "{\"type\":\"message_start\"}",
      "{\"type\":\"message_start\",\"message\":{}}",
      "{\"type\":\"message_start\",\"message\":{\"usage\":{}},\"extra\":{\"usage\":{\"input_tokens\":9}}}",
      "{\"type\":\"message_start\",\"usage\":{\"input_tokens\":9},\"message\":{\"id\":\"m\"}}",
      "{\"type\":\"message_delta\",\"message\":{\"usage\":{\"output_tokens\":9}}}",
      "{\"type\":\"content_block_start\",\"content_block\":{\"text\":\"no type, no index\"}}",
      "{\"type\":\"content_block_start\",\"index\":0}",
      "{\"content_block\":{\"type\":\"text\"},\"index\":5,\"type\":\"content_block_start\",\"future\":[1,{\"a\":[]}]}",
      // unicode escapes, in names and values
      "{\"type\":\"content_block_start\",\"\\u0069ndex\":2,\"content_block\":{\"\\u0074ype\":\"t\\u0065xt\"}}",
      "{\"type\":\"message_delta\",\"\\u0075sage\":{\"output_\\u0074okens\":15,\"caf\\u00e9\":3,\"\\ud83d\\ude42\":4}}",
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"name\":\"h\u00e9llo \u4e16\u754c \ud83d\ude42\"}}",
      // odd values
      "{\"index\":\"7\",\"content_block\":{\"type\":7}}",
      "{\"index\":1.9,\"content_block\":{\"type\":null}}",
      "{\"index\":-4,\"content_block\":{\"type\":true}}",
      "{\"index\":12345678901,\"content_block\":{\"type\":1.50}}",
      "{\"index\":123456789012345678901234567890,\"content_block\":{\"type\":1e5}}",
      "{\"index\":{\"a\":1},\"content_block\":{\"type\":{\"a\":\"text\"}}}",
      "{\"index\":[1],\"content_block\":{\"type\":[\"text\"]}}",
      "{\"index\":null,\"content_block\":\"text\"}",
      "{\"index\":true,\"content_block\":[{\"type\":\"text\"}]}",
      "{\"index\":\"null\",\"content_block\":null}",
      "{\"index\":-0,\"content_block\":{\"type\":-0}}",
      "{\"usage\":{\"input_tokens\":\"12\",\"output_tokens\":1.9,\"cache_read_input_tokens\":true,"
          + "\"cache_creation_input_tokens\":null,\"other\":false}}",
      "{\"usage\":{\"input_tokens\":123456789012345678901234567890,\"output_tokens\":-5,\"big\":9223372036854775807}}",
      "{\"usage\":{\"input_tokens\":{\"a\":1},\"output_tokens\":[2],\"cache_read_input_tokens\":\"x\"}}",
      "{\"usage\":{\"output_tokens\":1e2,\"input_tokens\":\" 3\",\"cache_read_input_tokens\":\"2.5\"}}",
      "{\"usage\":7}",
      "{\"usage\":[{\"output_tokens\":3}]}",
      "{\"usage\":null}",
      // a member given twice: the last counts
      "{\"index\":1,\"index\":2,\"content_block\":{\"type\":\"text\"},\"content_block\":{\"type\":\"tool_use\"}}",
      "{\"content_block\":{\"type\":\"text\",\"type\":\"thinking\"},\"content_block\":{\"id\":\"x\"}}",
      "{\"content_block\":{\"type\":\"text\"},\"content_block\":5}",
      "{\"usage\":{\"output_tokens\":3,\"output_tokens\":\"x\",\"input_tokens\":1,\"input_tokens\":2}}",
      "{\"usage\":{\"a\":1,\"b\":2,\"a\":\"x\",\"c\":3,\"a\":4,\"b\":null}}",
      "{\"usage\":{\"output_tokens\":3},\"usage\":{\"input_tokens\":4}}",
      "{\"usage\":{\"output_tokens\":3},\"usage\":\"none\"}",
      "{\"message\":{\"usage\":{\"output_tokens\":3}},\"message\":{\"id\":\"x\"}}",
      "{\"message\":{\"usage\":{\"output_tokens\":3}},\"message\":[]}",
      "{\"message\":{\"usage\":{\"output_tokens\":3},\"usage\":{\"input_tokens\":5}}}",
      "{\"message\":{\"usage\":{\"output_tokens\":3,\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5,\"f\":6,\"g\":7,\"h\":8,\"i\":9}}}",
      // whitespace
      " { \"index\" : 3 , \"content_block\" : { \"type\" : \"text\" } , \"usage\" : { \"output_tokens\" : 4 } } \n",
      // not one object, or not JSON
      "[]",
      "\"message_start\"",
      "",
      "  ",
      "{\"type\":\"message_st",
      "{\"index\":01}",
      "{\"index\":1}}",
      "{\"index\":1} x",
      "{\"index\":1}{}",
      "{\"usage\":{\"output_tokens\":1,}}",
      "{\"content_block\":{\"type\":\"bad \\x escape\"}}",
      "{\"content_block\":{\"type\":\"raw\ttab\"}}",
      "{'index':1}",
      "{\"a\":tru}",
      // numbers the tree cannot convert: an exponent too big for a BigDecimal, anywhere in the event
      "{\"usage\":{\"output_tokens\":1e99999999999}}",
      "{\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"input\":{\"x\":[1e99999999999]}}}",
      "{\"message\":{\"usage\":{\"output_tokens\":1},\"stop_details\":{\"n\":1e99999999999}}}",
      "{\"index\":1e99999999999}",
      "{\"type\":\"message_delta\",\"index\":0,\"x\":-1e99999999999}");

  @Test
  void theStreamingReadSaysWhatTheTreeSays() {
    for (String event : EVENTS) {
      for (String name : NAMES) {
        assertSame(name, event.getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  @Test
  void aMessageStartsUsageIsTheMessagesAndADeltasItsOwn() {
    FrameFields start = FrameFields.read("message_start", MESSAGE_START.getBytes(StandardCharsets.UTF_8));
    assertThat(start.tokenUsage()).isEqualTo(new TokenUsage(2095, 1, 1024, 0));
    assertThat(counts(start)).isEqualTo(Map.of("input_tokens", 2095L, "cache_creation_input_tokens", 0L,
        "cache_read_input_tokens", 1024L, "output_tokens", 1L)); // nested objects and strings are not counts
    FrameFields delta = FrameFields.read("message_delta", EVENTS.get(6).getBytes(StandardCharsets.UTF_8));
    assertThat(delta.tokenUsage()).isEqualTo(new TokenUsage(0, 15, 0, 0));
    assertThat(FrameFields.read("message_delta", MESSAGE_START.getBytes(StandardCharsets.UTF_8)).tokenUsage())
        .isEqualTo(TokenUsage.NONE);
  }

  @Test
  void aBlockStartGivesItsIndexAndType() {
    FrameFields tool = FrameFields.read("content_block_start", EVENTS.get(3).getBytes(StandardCharsets.UTF_8));
    assertThat(tool.index()).isEqualTo(2);
    assertThat(tool.blockType()).isEqualTo("tool_use"); // not the nested input's "type"
    assertThat(tool.blockIsObject()).isTrue();
    FrameFields escaped = FrameFields.read("content_block_start", EVENTS.get(17).getBytes(StandardCharsets.UTF_8));
    assertThat(escaped.index()).isEqualTo(2);
    assertThat(escaped.blockType()).isEqualTo("text");
  }

  @Test
  void aNumberTheTreeCannotHoldIsNotAnObject() {
    for (String event : EVENTS.subList(EVENTS.size() - 5, EVENTS.size())) {
      assertThat(FrameFields.read("message_start", event.getBytes(StandardCharsets.UTF_8))).as(event)
          .isSameAs(FrameFields.NOT_AN_OBJECT);
    }
  }

  @Test
  void malformedUtf8IsNotAnObject() {
    byte[] bytes = "{\"content_block\":{\"type\":\"a?b\"},\"skipped\":\"c?d\"}".getBytes(StandardCharsets.UTF_8);
    bytes[28] = (byte) 0xff;
    assertThat(FrameFields.read("content_block_start", bytes)).isSameAs(FrameFields.NOT_AN_OBJECT);
    bytes = "{\"content_block\":{\"type\":\"a?b\"},\"skipped\":\"c?d\"}".getBytes(StandardCharsets.UTF_8);
    bytes[45] = (byte) 0xc3; // a two-byte sequence cut short, in a value that is skipped
    assertThat(FrameFields.read("content_block_start", bytes)).isSameAs(FrameFields.NOT_AN_OBJECT);
  }

  @Test
  void theEventCachesItsFields() {
    SseEvent event = new SseEvent("message_start", MESSAGE_START);
    assertThat(event.frame()).isSameAs(event.frame());
    assertThat(new SseEvent("message_start", "{\"type\":").frame()).isNull();
  }

  /** Thousands of events damaged byte by byte: the streaming read agrees with the tree on each. */
  @Test
  void damagedEventsReadAsTheirTrees() {
    Random random = new Random(12);
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
      if (assertSame(NAMES.get(random.nextInt(NAMES.size())), bytes)) {
        accepted++;
      }
    }
    assertThat(accepted).isGreaterThan(500); // objects were read, not only refused
  }

  private static byte[] cut(byte[] bytes, int at) {
    byte[] out = new byte[bytes.length - 1];
    System.arraycopy(bytes, 0, out, 0, at);
    System.arraycopy(bytes, at + 1, out, at, bytes.length - at - 1);
    return out;
  }

  private static Map<String, Long> counts(FrameFields f) {
    Map<String, Long> counts = new HashMap<>();
    for (int i = 0; i < f.usageCounts(); i++) {
      assertThat(counts.put(f.usageName(i), f.usageCount(i))).as("each member once").isNull();
    }
    return counts;
  }

  /** Whether the bytes are one JSON object; fails when the streaming read differs from the tree. */
  private static boolean assertSame(String name, byte[] bytes) {
    String shown = name + " " + new String(bytes, StandardCharsets.UTF_8);
    FrameFields read = FrameFields.read(name, bytes);
    JsonNode tree;
    try {
      tree = Json.tryParse(bytes);
    } catch (RuntimeException e) { // a number the tree cannot convert (NumberFormatException escapes tryParse)
      tree = null;
    }
    if (tree == null || !tree.isObject()) {
      assertThat(read).as("not one object: %s", shown).isSameAs(FrameFields.NOT_AN_OBJECT);
      return false;
    }
    JsonNode usage = name.equals("message_start") ? tree.path("message").path("usage") : tree.path("usage");
    Map<String, Long> integral = new HashMap<>();
    usage.properties().forEach(field -> {
      if (field.getValue().isIntegralNumber()) {
        integral.put(field.getKey(), field.getValue().asLong());
      }
    });
    JsonNode block = tree.path("content_block");
    String model = name.equals("message_start") ? tree.path("message").path("model").asText(null) : null;
    assertThat(List.<Object>of(read.index(), read.blockType(), read.blockIsObject(), read.tokenUsage(), counts(read),
        String.valueOf(read.model()), read.hasUsageCount("input_tokens")))
        .as(shown)
        .isEqualTo(List.of(tree.path("index").asInt(), block.path("type").asText(), block.isObject(),
            TokenUsage.of(usage), integral, String.valueOf(model), integral.containsKey("input_tokens")));
    return true;
  }
}
