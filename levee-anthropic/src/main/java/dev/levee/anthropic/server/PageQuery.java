package dev.levee.anthropic.server;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.RefusalReason;
import java.util.List;
import java.util.function.Function;

/**
 * The paging of an Anthropic-compatible list ({@code GET /v1/models}, {@code GET
 * /v1/messages/batches}), checked: {@code limit} ({@link PageLimit}: 1–{@value PageLimit#MAX},
 * default {@value PageLimit#DEFAULT}), and {@code after_id} (the page right after that item) or
 * {@code before_id} (the page right before it), not both. Each is taken once and with a value: a
 * repeated one would leave the list to pick one of them (Jetty's parameters keep the first, a
 * hand-read query the last), an empty cursor would read as a cursor naming no item (an empty page,
 * as if there were none), and both cursors as one of them. Such a query is refused 400 {@code
 * invalid_request_error} ({@link RefusalReason#BAD_PARAMETER}) rather than answered with a page it
 * did not ask for. Any other parameter is not looked at here: the official SDKs add {@code
 * beta=true} to the beta endpoints' calls, and the Anthropic API ignores a parameter it does not
 * know, so a list that took only its own would refuse the SDKs. Immutable.
 *
 * @param limit the most items on the page
 * @param afterId the cursor for the page after it, or null
 * @param beforeId the cursor for the page before it, or null (never both)
 */
public record PageQuery(int limit, String afterId, String beforeId) {

  /** The parameters checked, in the order they are checked. */
  public static final List<String> NAMES = List.of("limit", "after_id", "before_id");

  /** What {@link #parse} found: a query, or the 400 naming the parameter at fault. */
  public sealed interface Parsed {}

  /** A query to list by. */
  public record Valid(PageQuery query) implements Parsed {}

  /** The 400 {@code invalid_request_error} to answer, with {@link RefusalReason#BAD_PARAMETER}. */
  public record Invalid(ApiError error) implements Parsed {}

  /**
   * Checks the paging parameters; the first fault found is named ({@code "after_id: empty; …"}).
   *
   * @param valuesOf the decoded values of the parameter of a decoded name, in the order sent; null or
   *     empty when it was not sent
   */
  public static Parsed parse(Function<String, List<String>> valuesOf) {
    String[] value = new String[NAMES.size()];
    for (int i = 0; i < value.length; i++) {
      String name = NAMES.get(i);
      List<String> values = valuesOf.apply(name);
      if (values == null || values.isEmpty()) {
        continue;
      }
      if (values.size() > 1) {
        return invalid(name + ": given " + values.size() + " times; give it once");
      }
      if (values.getFirst().isEmpty()) {
        return invalid(name + ": empty; give a value, or leave the parameter out");
      }
      value[i] = values.getFirst();
    }
    int limit = PageLimit.parse(value[0]);
    if (limit < 0) {
      return new Invalid(PageLimit.invalid(value[0]).because(RefusalReason.BAD_PARAMETER));
    }
    if (value[1] != null && value[2] != null) {
      return invalid("before_id: give after_id (the page after an item) or before_id (the page before one), not both");
    }
    return new Valid(new PageQuery(limit, value[1], value[2]));
  }

  private static Invalid invalid(String message) {
    return new Invalid(ApiError.invalidRequest(message).because(RefusalReason.BAD_PARAMETER));
  }
}
