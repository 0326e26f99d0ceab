package dev.levee.gateway.jobs;

import java.util.List;
import java.util.Map;

/**
 * The answer recorded for a job: what the API (or Levee on its behalf) said.
 *
 * @param status the HTTP status
 * @param headers the headers Levee returns with it (lower-case names)
 * @param body the body, bytes as received
 */
public record JobResult(int status, Map<String, List<String>> headers, byte[] body) {

  public JobResult {
    headers = Map.copyOf(headers);
  }

  @Override
  public String toString() {
    return "JobResult[" + status + ", " + body.length + " bytes]";
  }
}
