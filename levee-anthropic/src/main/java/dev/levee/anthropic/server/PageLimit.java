package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;

/**
 * The {@code limit} of a list endpoint, as the Anthropic API's lists take it ({@code GET
 * /v1/models}, {@code GET /v1/messages/batches}): a whole number from 1 to {@value #MAX}, default
 * {@value #DEFAULT}. One wording for its error, whichever list refuses it.
 */
public final class PageLimit {

  /** The items of a page when the query names no limit. */
  public static final int DEFAULT = 20;

  /** The most items a page may ask for. */
  public static final int MAX = 1000;

  private PageLimit() {}

  /**
   * The limit {@code text} asks for ({@value #DEFAULT} when null), or -1 when it is no whole number
   * from 1 to {@value #MAX}: answer {@link #invalid} then.
   */
  public static int parse(String text) {
    if (text == null) {
      return DEFAULT;
    }
    try {
      int limit = Integer.parseInt(text.trim());
      return limit >= 1 && limit <= MAX ? limit : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** 400 {@code invalid_request_error} {@code "limit: must be an integer from 1 to 1000, was '…'"}. */
  public static ApiError invalid(String text) {
    return ApiError.invalidRequest("limit: must be an integer from 1 to " + MAX + ", was '"
        + ClientText.shown(text) + "'");
  }
}
