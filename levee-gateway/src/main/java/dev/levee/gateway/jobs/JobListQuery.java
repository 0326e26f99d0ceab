package dev.levee.gateway.jobs;

import dev.levee.anthropic.error.ApiError;
import dev.levee.anthropic.error.ClientText;
import dev.levee.anthropic.error.RefusalReason;
import dev.levee.anthropic.server.PageLimit;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.jetty.util.Fields;

/**
 * The query of {@code GET /admin/jobs}, checked: {@code state} (one or more job states, separated
 * by commas), {@code alias}, {@code tenant}, {@code feature} (exact, at most 256 characters), and
 * the Anthropic API's paging — {@code limit} ({@link PageLimit}: 1–1000, default 20), {@code
 * after_id} (the page after that job: older ones) or {@code before_id} (the page right before it:
 * newer ones), not both. A parameter it does not take, an empty value or a repeated parameter is
 * refused rather than ignored: an operator who mistypes a filter must not read an unfiltered list
 * as the answer.
 *
 * @param filter which jobs
 * @param afterId the cursor for older jobs, or null
 * @param beforeId the cursor for newer jobs, or null
 * @param limit the most jobs on the page
 */
record JobListQuery(JobStore.Filter filter, String afterId, String beforeId, int limit) {

  /** The parameters taken, in the order the error lists them. */
  static final List<String> NAMES = List.of("state", "alias", "tenant", "feature", "limit", "after_id", "before_id");

  /** A job id: {@code job_} and 26 characters of {@code 0-9a-z}. */
  static final Pattern ID = Pattern.compile("job_[0-9a-z]{26}");

  private static final int MAX_NAME = 256;

  /** What {@link #parse} found: a query, or the 400 naming the parameter at fault. */
  sealed interface Parsed {}

  record Valid(JobListQuery query) implements Parsed {}

  record Invalid(ApiError error) implements Parsed {}

  /** Checks {@code query} (the request's decoded query parameters); the first fault found is named. */
  static Parsed parse(Fields query) {
    for (Fields.Field field : query) {
      String name = field.getName();
      if (!NAMES.contains(name)) {
        return invalid(ClientText.shown(name) + ": unknown parameter; /admin/jobs takes " + String.join(", ", NAMES));
      }
      if (field.getValues().size() > 1) {
        return invalid(name + ": given " + field.getValues().size() + " times; give it once"
            + (name.equals("state") ? " (several states go in one, separated by commas)" : ""));
      }
      if (field.getValue().isEmpty()) {
        return invalid(name + ": empty; give a value, or leave the parameter out"
            + (name.equals("limit") || name.endsWith("_id") ? "" : " to list every " + name));
      }
      if (field.getValue().length() > MAX_NAME && List.of("alias", "tenant", "feature").contains(name)) {
        return invalid(name + ": at most " + MAX_NAME + " characters");
      }
    }
    Set<JobState> states = EnumSet.noneOf(JobState.class);
    String stateText = query.getValue("state");
    if (stateText != null) {
      for (String word : stateText.split(",", -1)) {
        try {
          states.add(JobState.ofWire(word.trim()));
        } catch (IllegalArgumentException e) {
          return invalid("state: '" + ClientText.shown(word.trim()) + "' is not a job state; expected one or more of "
              + Arrays.stream(JobState.values()).map(JobState::wire).collect(Collectors.joining(", "))
              + ", separated by commas");
        }
      }
    }
    int limit = PageLimit.parse(query.getValue("limit"));
    if (limit < 0) {
      return new Invalid(PageLimit.invalid(query.getValue("limit")).because(RefusalReason.BAD_PARAMETER));
    }
    String afterId = query.getValue("after_id");
    String beforeId = query.getValue("before_id");
    if (afterId != null && beforeId != null) {
      return invalid("before_id: give after_id (older jobs) or before_id (newer jobs), not both");
    }
    for (String[] cursor : new String[][] {{"after_id", afterId}, {"before_id", beforeId}}) {
      if (cursor[1] != null && !ID.matcher(cursor[1]).matches()) {
        return invalid(notAnId(cursor[0], cursor[1]));
      }
    }
    return new Valid(new JobListQuery(new JobStore.Filter(states, query.getValue("alias"), query.getValue("tenant"),
        query.getValue("feature")), afterId, beforeId, limit));
  }

  /** {@code "<what>: '<id>' is not a job id (…)"}. */
  static String notAnId(String what, String id) {
    return what + ": '" + ClientText.shown(id) + "' is not a job id (job_ and 26 characters of 0-9 a-z)";
  }

  private static Invalid invalid(String message) {
    return new Invalid(ApiError.invalidRequest(message).because(RefusalReason.BAD_PARAMETER));
  }
}
