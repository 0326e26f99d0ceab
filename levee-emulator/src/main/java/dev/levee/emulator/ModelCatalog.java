package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import java.util.List;
import java.util.Optional;

/**
 * The models the emulator lists ({@code GET /v1/models}, newest first) and knows by their alias and
 * dated snapshot ID, with each one's maximum output. Immutable.
 *
 * <p>Source of the IDs, release dates and maximum outputs: Anthropic's models overview
 * (platform.claude.com/docs/en/about-claude/models/overview) and each model's page
 * (platform.claude.com/docs/en/models/&lt;model&gt;/overview): Claude Opus 4.6 and Sonnet 4.6 have no
 * dated ID and 128K output; Haiku 4.5 ({@code claude-haiku-4-5-20251001}), Sonnet 4.5 ({@code
 * claude-sonnet-4-5-20250929}) and Opus 4.5 ({@code claude-opus-4-5-20251101}, alias {@code
 * claude-opus-4-5} as a tester saw the API take it) have 64K. "K" is 1,000 tokens, as the API's own
 * refusal says ({@code max_tokens: 9999999 > 128000, which is the maximum allowed number of output
 * tokens for claude-opus-4-8}, quoted in github.com/Effect-TS/effect/pull/7129). Models whose
 * maximum output could not be confirmed there (Claude Opus 4.1, Claude Sonnet 4) are left out.
 */
final class ModelCatalog {

  /** The listed models, newest first. */
  static final List<Model> MODELS = List.of(
      new Model("claude-opus-4-6", null, "Claude Opus 4.6", "2026-02-05T00:00:00Z", 128_000),
      new Model("claude-sonnet-4-6", null, "Claude Sonnet 4.6", "2026-02-17T00:00:00Z", 128_000),
      new Model("claude-opus-4-5", "claude-opus-4-5-20251101", "Claude Opus 4.5", "2025-11-24T00:00:00Z", 64_000),
      new Model("claude-haiku-4-5", "claude-haiku-4-5-20251001", "Claude Haiku 4.5", "2025-10-15T00:00:00Z", 64_000),
      new Model("claude-sonnet-4-5", "claude-sonnet-4-5-20250929", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z",
          64_000),
      new Model("emu-ok", null, "Emulator (healthy)", "2025-01-01T00:00:00Z", 0));

  /**
   * One model.
   *
   * @param id the ID it is listed by (the API's alias)
   * @param snapshot its dated snapshot ID, or null when the alias is its only ID
   * @param maxOutputTokens the largest {@code max_tokens} it takes, in tokens; 0 for no limit
   */
  record Model(String id, String snapshot, String displayName, String createdAt, int maxOutputTokens) {

    /** Whether {@code name} is this model's alias or snapshot ID. */
    boolean answersTo(String name) {
      return id.equals(name) || name.equals(snapshot);
    }

    ObjectNode toJson() {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "model");
      node.put("id", id);
      node.put("display_name", displayName);
      node.put("created_at", createdAt);
      return node;
    }
  }

  private ModelCatalog() {}

  /** The model {@code name} is the alias or snapshot ID of, if any. */
  static Optional<Model> find(String name) {
    return MODELS.stream().filter(model -> model.answersTo(name)).findFirst();
  }

  /**
   * The API's refusal of {@code maxTokens} for {@code name} (as requested; {@code model} the name
   * without an emulator suffix), or null when it is within the model's maximum output or the
   * model has no known limit. Worded as the API's 400: "max_tokens: 10000000 > 64000, which is
   * the maximum allowed number of output tokens for claude-…".
   */
  static String maxTokensRefusal(String model, String name, int maxTokens) {
    int limit = find(model).map(Model::maxOutputTokens).orElse(0);
    if (limit == 0 || maxTokens <= limit) {
      return null;
    }
    return "max_tokens: " + maxTokens + " > " + limit + ", which is the maximum allowed number of output tokens for "
        + name;
  }
}
