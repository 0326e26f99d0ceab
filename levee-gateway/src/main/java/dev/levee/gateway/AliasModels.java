package dev.levee.gateway;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.levee.anthropic.Json;
import dev.levee.core.chain.Target;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The model object of a configured alias, for {@code GET /v1/models/{model_id}}: the shape of
 * Anthropic's Models API ({@code {"type": "model", "id", "display_name", "created_at"}}, RFC 3339
 * time), so an SDK's {@code models.retrieve("<alias>")} works against the gateway. The upstream
 * knows nothing of an alias, so Levee answers for it; any other id is relayed ({@link PassThrough}).
 * {@code created_at} is when this gateway loaded its configuration (an alias has no release date),
 * to the second. Stateless after construction; thread-safe.
 */
final class AliasModels {

  private final Aliases aliases;
  private final String loadedAt;

  AliasModels(Aliases aliases, Instant loadedAt) {
    this.aliases = aliases;
    this.loadedAt = loadedAt.truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /** The model object of {@code id} when it is a configured alias, else empty. */
  Optional<ObjectNode> model(String id) {
    return aliases.configured(id).map(chain -> {
      ObjectNode node = Json.MAPPER.createObjectNode();
      node.put("type", "model");
      node.put("id", id);
      node.put("display_name", id + " (Levee alias: " + chain.targets().stream().map(Target::model).distinct()
          .collect(Collectors.joining(", ")) + ")");
      node.put("created_at", loadedAt);
      return node;
    });
  }
}
