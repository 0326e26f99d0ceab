package dev.levee.gateway.pipeline;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A Messages API request body must be sent as it is: no {@code content-encoding}, or only {@code
 * identity}. Levee validates the body as JSON and splices its {@code model} by byte offsets, and
 * does not decode request bodies; reading a {@code gzip} body as JSON would refuse it with a
 * misleading syntax error, and reading a plain body labelled {@code br} as plain JSON while
 * forwarding the label would make Levee and the upstream read different bodies. Any other coding
 * is refused at the door with 400 {@code invalid_request_error} naming the header, never forwarded.
 */
final class IdentityContentEncoding {

  private IdentityContentEncoding() {}

  /** The refusal for the {@code content-encoding} header values (empty when absent), or empty when identity. */
  static Optional<ApiError> check(List<String> values) {
    if (values.isEmpty()) {
      return Optional.empty(); // nearly every request: no stream, no allocation
    }
    boolean identity = values.stream().flatMap(v -> java.util.Arrays.stream(v.split(",")))
        .map(c -> c.strip().toLowerCase(Locale.ROOT)).allMatch(c -> c.isEmpty() || c.equals("identity"));
    if (identity) {
      return Optional.empty();
    }
    String sent = ClientText.shown(String.join(", ", values));
    return Optional.of(ApiError.invalidRequest("The request body must be sent uncompressed: Levee does not decode"
        + " request bodies (the request had content-encoding: " + sent + ").").because(RefusalReason.COMPRESSED_BODY));
  }
}
