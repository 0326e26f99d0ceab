package dev.levee.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The model objects of the configured aliases, for {@code GET /v1/models} and {@code GET
 * /v1/models/{model_id}}: the shape of Anthropic's Models API ({@code {"type": "model", "id",
 * "display_name", "created_at"}}, RFC 3339 time), so an SDK's {@code models.list()} and {@code
 * models.retrieve("<alias>")} work against the gateway. The upstream knows nothing of an alias, so
 * Levee answers for it. {@code display_name} is {@code "<alias> (Levee alias: <its models>)"};
 * {@code created_at} is the release date of the chain's first model ({@link ReleaseDates}). Thread-safe.
 */
final class AliasModels {

  private final Aliases aliases;
  private final ReleaseDates dates;

  AliasModels(Aliases aliases, ReleaseDates dates) {
    this.aliases = aliases;
    this.dates = dates;
  }

  /** The configured aliases, in configuration order. */
  List<String> ids() {
    return aliases.names();
  }

  /**
   * The model object of {@code id} when it is a configured alias, else empty.
   *
   * @param clientHeaders the client's headers, to look up a release date not known yet
   * @param lookUp whether a release date not known yet may be asked of the upstream
   */
  Optional<ObjectNode> model(String id, Map<String, List<String>> clientHeaders, boolean lookUp) {
    return aliases.configured(id).map(chain -> {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "model");
      node.put("id", id);
      node.put("display_name", id + " (Levee alias: " + chain.targets().stream().map(Target::model).distinct()
          .collect(Collectors.joining(", ")) + ")");
      node.put("created_at", dates.of(chain.targets().getFirst(), clientHeaders, lookUp));
      return node;
    });
  }
}
