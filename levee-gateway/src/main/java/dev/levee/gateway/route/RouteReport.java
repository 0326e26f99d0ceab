package dev.levee.gateway.route;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.route.Exclusion;
import dev.levee.core.route.RouteDecision;
import dev.levee.core.route.RouteRequest;
import dev.levee.core.route.Score;
import dev.levee.gateway.AliasChain;
import java.util.Locale;

/**
 * The body of {@code GET /admin/route}: what the scoring router would choose now for a request
 * to an alias, and why — each candidate's four terms and the inputs they came from, and each
 * excluded target's reason. Shapes: points as numbers rounded to 0.01, latencies in ms, costs in
 * dollars.
 */
public final class RouteReport {

  private RouteReport() {}

  public static ObjectNode of(AliasChain alias, RouteRequest request, RouteDecision decision) {
    ObjectNode root = Json.MAPPER.createObjectNode();
    root.put("alias", alias.alias());
    root.put("route", alias.routed() ? "score" : "chain");
    ObjectNode asked = root.putObject("request");
    asked.put("task", request.task().label());
    asked.put("latency_budget_ms", request.latencyBudget().toMillis());
    asked.put("prefer", request.preference().label());
    asked.put("input_tokens", request.inputTokens());
    decision.chosen().ifPresentOrElse(t -> root.put("chosen", t.id()), () -> root.putNull("chosen"));
    root.put("explain", decision.explain());
    ArrayNode order = root.putArray("order");
    decision.order().forEach(t -> order.add(t.id()));
    ArrayNode candidates = root.putArray("candidates");
    for (Score score : decision.ranked()) {
      ObjectNode c = candidates.addObject();
      c.put("target", score.target().id());
      c.put("total", round(score.total()));
      c.put("reliability", round(score.reliability()));
      c.put("latency", round(score.latency()));
      c.put("cost", round(score.cost()));
      c.put("task_fit", round(score.taskFit()));
      c.put("success", Math.round(score.success() * 1000) / 1000.0);
      c.put("p95_ms", score.p95().toMillis());
      if (Double.isNaN(score.estimatedInputCost())) {
        c.putNull("estimated_input_cost");
      } else {
        c.put("estimated_input_cost", score.estimatedInputCost());
      }
    }
    ArrayNode excluded = root.putArray("excluded");
    for (Exclusion exclusion : decision.excluded()) {
      ObjectNode e = excluded.addObject();
      e.put("target", exclusion.target().id());
      e.put("reason", exclusion.reason().name().toLowerCase(Locale.ROOT));
    }
    return root;
  }

  private static double round(double points) {
    return Math.round(points * 100) / 100.0;
  }
}
