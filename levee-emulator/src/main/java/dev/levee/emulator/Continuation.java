package dev.levee.emulator;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What to answer, once continuations are recognised. Three cases, tried in this order:
 *
 * <ol>
 *   <li><b>Prefill</b>: the last message is from the assistant and its content is a prefix of the
 *       answer to the conversation before it (complete blocks, then optionally a text that is a
 *       proper prefix of the next text block). The response holds only the remainder, like the
 *       real API. A trailing assistant message that is not such a prefix gets a fresh answer
 *       seeded by the whole conversation.
 *   <li><b>No-prefill continuation</b>: the messages end with [assistant, user] and that
 *       assistant content is a <i>proper</i> prefix of the answer to the conversation before it.
 *       The response is the remainder; when it continues a text the partial had started, it
 *       first repeats the partial's last {@code overlap} words (as real models do), so that a
 *       gateway's overlap trimming is exercised. {@code overlap} 0 disables the repetition.
 *   <li>Otherwise the answer to the whole conversation.
 * </ol>
 *
 * Empty text blocks in the partial are ignored. A partial without the answer's leading thinking
 * block is matched against the answer without it. Thinking blocks match on their text (signatures are ignored), tool_use blocks on name and
 * input.
 *
 * @param kind which case applied
 * @param blocks the blocks to emit, before any {@code max_tokens} cut
 */
record Continuation(Kind kind, List<AnswerBlock> blocks) {

  enum Kind {
    NONE, PREFILL, NO_PREFILL;

    /** The name used in the log: {@code prefill}, {@code no-prefill}, or null. */
    String label() {
      return switch (this) {
        case NONE -> null;
        case PREFILL -> "prefill";
        case NO_PREFILL -> "no-prefill";
      };
    }
  }

  static Continuation resolve(MessagesRequest request, AnswerGenerator generator, int overlap) {
    List<JsonNode> messages = request.messages();
    int n = messages.size();
    if (request.lastRole().equals("assistant")) {
      List<JsonNode> before = messages.subList(0, n - 1);
      Remainder rest = remainder(generator.answer(request.system(), before, request.tools(), request.thinking()),
          Blocks.of(messages.get(n - 1).get("content")));
      if (rest != null) {
        return new Continuation(Kind.PREFILL, rest.blocks());
      }
    } else if (n >= 2 && messages.get(n - 2).path("role").asText().equals("assistant")) {
      List<JsonNode> before = messages.subList(0, n - 2);
      Remainder rest = remainder(generator.answer(request.system(), before, request.tools(), request.thinking()),
          Blocks.of(messages.get(n - 2).get("content")));
      if (rest != null && !rest.blocks().isEmpty()) {
        return new Continuation(Kind.NO_PREFILL, withOverlap(rest, overlap));
      }
    }
    return new Continuation(Kind.NONE,
        generator.answer(request.system(), messages, request.tools(), request.thinking()));
  }

  /**
   * @param blocks what remains of the answer
   * @param continuedText the partial's last text when the first remaining block continues it,
   *     else null
   */
  record Remainder(List<AnswerBlock> blocks, String continuedText) {}

  /** What remains of {@code answer} after {@code partial}, or null when it is not a prefix. */
  static Remainder remainder(List<AnswerBlock> answer, List<JsonNode> given) {
    List<JsonNode> partial = given.stream()
        .filter(block -> !(block.path("type").asText().equals("text") && block.path("text").asText("").isEmpty()))
        .toList();
    List<AnswerBlock> full = answer;
    if (!partial.isEmpty() && !full.isEmpty() && full.getFirst() instanceof AnswerBlock.Thinking
        && !partial.getFirst().path("type").asText().equals("thinking")) {
      full = full.subList(1, full.size());
    }
    if (partial.isEmpty()) {
      return new Remainder(full, null);
    }
    int last = partial.size() - 1;
    for (int i = 0; i < last; i++) {
      if (i >= full.size() || !matches(partial.get(i), full.get(i))) {
        return null;
      }
    }
    if (last >= full.size()) {
      return null;
    }
    JsonNode tail = partial.get(last);
    if (matches(tail, full.get(last))) {
      return new Remainder(full.subList(last + 1, full.size()), null);
    }
    if (full.get(last) instanceof AnswerBlock.Text text && tail.path("type").asText().equals("text")) {
      String started = tail.path("text").asText("");
      if (!started.isEmpty() && text.text().startsWith(started)) {
        List<AnswerBlock> rest = new ArrayList<>();
        rest.add(new AnswerBlock.Text(text.text().substring(started.length())));
        rest.addAll(full.subList(last + 1, full.size()));
        return new Remainder(rest, started);
      }
    }
    return null;
  }

  private static List<AnswerBlock> withOverlap(Remainder rest, int overlap) {
    if (rest.continuedText() == null || overlap <= 0) {
      return rest.blocks();
    }
    List<AnswerBlock> blocks = new ArrayList<>(rest.blocks());
    String continued = ((AnswerBlock.Text) blocks.getFirst()).text();
    blocks.set(0, new AnswerBlock.Text(Words.last(rest.continuedText(), overlap) + continued));
    return blocks;
  }

  private static boolean matches(JsonNode given, AnswerBlock expected) {
    String type = given.path("type").asText("");
    return switch (expected) {
      case AnswerBlock.Text text -> type.equals("text") && given.path("text").asText("").equals(text.text());
      case AnswerBlock.Thinking thinking -> type.equals("thinking")
          && given.path("thinking").asText("").equals(thinking.thinking());
      case AnswerBlock.ToolUse tool -> type.equals("tool_use") && given.path("name").asText("").equals(tool.name())
          && given.path("input").equals(tool.input());
    };
  }
}
