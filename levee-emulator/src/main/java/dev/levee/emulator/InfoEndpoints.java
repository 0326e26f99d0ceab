package dev.levee.emulator;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.server.PageLimit;
import java.util.List;

/** {@code POST /v1/messages/count_tokens} and {@code GET /v1/models[/{id}]}. */
final class InfoEndpoints {

  private InfoEndpoints() {}

  /**
   * {@code {"input_tokens": N}} with the same estimate as {@code usage.input_tokens}; 404 {@code
   * not_found_error} for a model name it does not know, as {@code POST /v1/messages}.
   */
  static void countTokens(Exchange exchange, byte[] body, EmulatorState state) {
    switch (MessagesRequest.parse(body, true, exchange.record.anthropicBeta())) {
      case MessagesRequest.Invalid invalid -> {
        exchange.record.request(invalid.model(), false, null);
        exchange.fail(invalid.error());
      }
      case MessagesRequest.Valid valid when !valid.request().model().startsWith("emu-")
          && !state.options.knows(valid.request().model(), state.scenario) -> {
        exchange.record.request(valid.request().model(), false, valid.request().lastRole());
        exchange.fail(ApiError.notFound("model: " + valid.request().model()));
      }
      case MessagesRequest.Valid valid -> {
        exchange.record.request(valid.request().model(), false, valid.request().lastRole());
        ObjectNode count = Json.MAPPER.createObjectNode();
        count.put("input_tokens", valid.request().inputTokens());
        exchange.sendJson(200, Json.bytes(count));
      }
    }
  }

  /**
   * The list shape: {@code data}, {@code has_more}, {@code first_id}, {@code last_id}; one page as
   * the API pages it: {@code limit} (default 20, 1 to 1000), then the models right after {@code
   * after_id} or right before {@code before_id} (newest first). An id it does not list gives an
   * empty page; a bad {@code limit}, or a query whose percent-encoded bytes are not UTF-8, a 400
   * {@code invalid_request_error}.
   */
  static void models(Exchange exchange) {
    org.eclipse.jetty.util.Fields query;
    try {
      query = org.eclipse.jetty.server.Request.extractQueryParameters(exchange.request);
    } catch (IllegalStateException | IllegalArgumentException e) { // Jetty's "400: Bad query": %ff and the like
      exchange.fail(ApiError.invalidRequest("The query string is not valid: its percent-encoded bytes must be UTF-8."));
      return;
    }
    int limit = PageLimit.parse(query.getValue("limit"));
    if (limit < 0) {
      exchange.fail(PageLimit.invalid(query.getValue("limit")));
      return;
    }
    List<ModelCatalog.Model> models = ModelCatalog.MODELS;
    List<String> ids = models.stream().map(ModelCatalog.Model::id).toList();
    String before = query.getValue("before_id");
    String after = query.getValue("after_id");
    int from;
    int to;
    if (before != null) {
      to = Math.max(0, ids.indexOf(before));
      from = Math.max(0, to - limit);
    } else {
      from = after == null ? 0 : ids.indexOf(after) < 0 ? models.size() : ids.indexOf(after) + 1;
      to = Math.min(models.size(), from + limit);
    }
    List<ModelCatalog.Model> page = models.subList(from, to);
    ObjectNode body = Json.MAPPER.createObjectNode();
    ArrayNode data = body.putArray("data");
    page.forEach(model -> data.add(model.toJson()));
    body.put("has_more", before != null ? from > 0 : to < models.size());
    body.put("first_id", page.isEmpty() ? null : page.getFirst().id());
    body.put("last_id", page.isEmpty() ? null : page.getLast().id());
    exchange.sendJson(200, Json.bytes(body));
  }

  /** One model object, found by its alias or dated snapshot ID, or 404 {@code not_found_error}. */
  static void model(Exchange exchange, String id) {
    ModelCatalog.find(id).ifPresentOrElse(model -> exchange.sendJson(200, Json.bytes(model.toJson())),
        () -> exchange.fail(ApiError.notFound("model: " + id)));
  }
}
