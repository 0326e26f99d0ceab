package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import java.util.List;

/** {@code POST /v1/messages/count_tokens} and {@code GET /v1/models[/{id}]}. */
final class InfoEndpoints {

  /** The models {@code GET /v1/models} lists, newest first, with their creation dates. */
  static final List<Model> MODELS = List.of(
      new Model("claude-opus-4-6", "Claude Opus 4.6", "2026-02-05T00:00:00Z"),
      new Model("claude-sonnet-4-6", "Claude Sonnet 4.6", "2026-02-17T00:00:00Z"),
      new Model("claude-haiku-4-5", "Claude Haiku 4.5", "2025-10-15T00:00:00Z"),
      new Model("claude-sonnet-4-5", "Claude Sonnet 4.5", "2025-09-29T00:00:00Z"),
      new Model("emu-ok", "Emulator (healthy)", "2025-01-01T00:00:00Z"));

  /** One entry of the models list. */
  record Model(String id, String displayName, String createdAt) {
    ObjectNode toJson() {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "model");
      node.put("id", id);
      node.put("display_name", displayName);
      node.put("created_at", createdAt);
      return node;
    }
  }

  private InfoEndpoints() {}

  /** {@code {"input_tokens": N}} with the same estimate as {@code usage.input_tokens}. */
  static void countTokens(Exchange exchange, byte[] body) {
    switch (MessagesRequest.parse(body, true, exchange.record.anthropicBeta())) {
      case MessagesRequest.Invalid invalid -> {
        exchange.record.request(invalid.model(), false, null);
        exchange.fail(invalid.error());
      }
      case MessagesRequest.Valid valid -> {
        exchange.record.request(valid.request().model(), false, valid.request().lastRole());
        ObjectNode count = Json.MAPPER.createObjectNode();
        count.put("input_tokens", valid.request().inputTokens());
        exchange.sendJson(200, Json.bytes(count));
      }
    }
  }

  /** The list shape: {@code data}, {@code has_more}, {@code first_id}, {@code last_id}. */
  static void models(Exchange exchange) {
    ObjectNode page = Json.MAPPER.createObjectNode();
    ArrayNode data = page.putArray("data");
    MODELS.forEach(model -> data.add(model.toJson()));
    page.put("has_more", false);
    page.put("first_id", MODELS.getFirst().id());
    page.put("last_id", MODELS.getLast().id());
    exchange.sendJson(200, Json.bytes(page));
  }

  /** One model object, or 404 {@code not_found_error}. */
  static void model(Exchange exchange, String id) {
    for (Model model : MODELS) {
      if (model.id().equals(id)) {
        exchange.sendJson(200, Json.bytes(model.toJson()));
        return;
      }
    }
    exchange.fail(ApiError.notFound("model: " + id));
  }
}
