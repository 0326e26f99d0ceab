package dev.levee.gateway.route;

/**
 * A cheap estimate of a request's input tokens, for the router's cost term and for pacing, made
 * without tokenizing: one token per 4 bytes of the request body (Anthropic's rule of thumb for
 * English text is about 3.5 characters per token; JSON syntax makes the body a little longer than
 * its text, so the two roughly cancel). It overcounts base64 images and documents, which is the
 * safe side for pacing. The exact count, when needed, is the API's {@code count_tokens}.
 */
public final class InputTokens {

  /** Bytes per estimated token. */
  public static final int BYTES_PER_TOKEN = 4;

  private InputTokens() {}

  /** {@code ceil(bodyBytes / 4)}, at least 1 for a non-empty body; 0 for an empty one. */
  public static long estimate(long bodyBytes) {
    if (bodyBytes < 0) {
      throw new IllegalArgumentException("bodyBytes must be >= 0, was " + bodyBytes);
    }
    return (bodyBytes + BYTES_PER_TOKEN - 1) / BYTES_PER_TOKEN;
  }
}
