package dev.levee.emulator;

import dev.levee.anthropic.Json;
import java.util.ArrayList;
import java.util.List;

/**
 * The blocks a response carries after {@code max_tokens} is applied, with its stop reason and
 * output token count.
 *
 * <p>Token accounting: one token per word of text and thinking; a tool_use block costs a quarter
 * of its input's JSON length (at least 1) and is emitted only when it fits whole. When the budget
 * runs out the answer stops there with {@code max_tokens}; otherwise the stop reason is {@code
 * tool_use} when the last block is a tool_use, else {@code end_turn}.
 *
 * @param blocks the blocks to send, possibly shortened
 * @param stopReason {@code end_turn}, {@code max_tokens} or {@code tool_use}
 * @param outputTokens the tokens the blocks cost
 */
record ResponsePlan(List<AnswerBlock> blocks, String stopReason, int outputTokens) {

  static ResponsePlan of(List<AnswerBlock> answer, int maxTokens) {
    List<AnswerBlock> blocks = new ArrayList<>();
    int left = maxTokens;
    for (AnswerBlock block : answer) {
      int cost = cost(block);
      if (cost <= left) {
        blocks.add(block);
        left -= cost;
        continue;
      }
      int budget = left;
      if (budget > 0) {
        switch (block) {
          case AnswerBlock.Text text -> blocks.add(new AnswerBlock.Text(Words.first(text.text(), budget)));
          case AnswerBlock.Thinking thinking -> blocks.add(
              new AnswerBlock.Thinking(Words.first(thinking.thinking(), budget), thinking.signature()));
          case AnswerBlock.ToolUse tool -> { } // a tool call is sent whole or not at all
        }
      }
      return new ResponsePlan(List.copyOf(blocks), "max_tokens", tokens(blocks));
    }
    String stop = !blocks.isEmpty() && blocks.getLast() instanceof AnswerBlock.ToolUse ? "tool_use" : "end_turn";
    return new ResponsePlan(List.copyOf(blocks), stop, tokens(blocks));
  }

  private static int tokens(List<AnswerBlock> blocks) {
    return blocks.stream().mapToInt(ResponsePlan::cost).sum();
  }

  static int cost(AnswerBlock block) {
    return switch (block) {
      case AnswerBlock.Text text -> Words.count(text.text());
      case AnswerBlock.Thinking thinking -> Words.count(thinking.thinking());
      case AnswerBlock.ToolUse tool -> Math.max(1, Json.string(tool.input()).length() / 4);
    };
  }
}
